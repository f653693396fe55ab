/**
 * What the importers share (import/common.ts): the source folder read as distrusted (links out of
 * it skipped), JSON files read within a size and never quoted, and the import session's "find or
 * create", which a second run finds instead of doubling.
 */
import { join } from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { type Config, ConfigError, parseConfig } from "../../../config.ts";
import { checkEmail, ImportSession, readJson, SourceFolder } from "../../../import/common.ts";
import { openSqliteStore } from "../../../store/sqlite/mod.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "parley-import-test-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The ConfigError `fn` fails with, as its message. */
async function failure(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (err) {
    assert(err instanceof ConfigError, `not a ConfigError: ${err}`);
    return err.message;
  }
  throw new Error("it did not fail");
}

Deno.test("source folder: links are followed inside it and skipped out of it", async () => {
  await withDir(async (dir) => {
    const root = join(dir, "home");
    await Deno.mkdir(join(root, "logs"), { recursive: true });
    await Deno.writeTextFile(join(root, "logs", "b.log"), "x");
    await Deno.writeTextFile(join(dir, "secret"), "not yours");
    await Deno.symlink(join(root, "logs", "b.log"), join(root, "logs", "a.log"));
    await Deno.symlink(join(dir, "secret"), join(root, "logs", "c.log"));
    await Deno.symlink(dir, join(root, "logs", "up"));
    // A sibling whose name begins like the folder's is not inside it.
    await Deno.mkdir(join(dir, "home2"));
    await Deno.symlink(join(dir, "home2"), join(root, "logs", "twin"));
    const folder = await SourceFolder.open(root);
    const listed = await folder.list(join(root, "logs"));
    assertEquals(listed.map((e) => [e.name, e.isFile]), [["a.log", true], ["b.log", true]]);
    assertEquals(folder.skipped.sort(), ["c.log", "twin", "up"].map((n) => join(root, "logs", n)));
    assertEquals(await folder.inside(join(root, "missing")), false);
    assertEquals(await folder.inside(root), true);
    assertStringIncludes(
      await failure(() => folder.list(join(root, "missing"))),
      `cannot import ${join(root, "missing")}`,
    );
  });
});

Deno.test("readJson: an object, or an error naming the file and never quoting it", async () => {
  await withDir(async (dir) => {
    const file = (name: string, text: string) => {
      Deno.writeTextFileSync(join(dir, name), text);
      return join(dir, name);
    };
    assertEquals(await readJson(file("ok.json", '{"a": [1]}')), { a: [1] });
    const secret = file("secret.txt", "password=hunter2");
    assertEquals(await failure(() => readJson(secret)), `cannot import ${secret}: not valid JSON`);
    const list = file("list.json", "[1]");
    assertEquals(await failure(() => readJson(list)), `cannot import ${list}: not a JSON object`);
    assertEquals(
      await failure(() => readJson(file("null.json", "null"))),
      `cannot import ${join(dir, "null.json")}: not a JSON object`,
    );
    const big = file("big.json", JSON.stringify({ pad: "x".repeat(4 * 1024 * 1024) }));
    assertStringIncludes(await failure(() => readJson(big)), "larger than 4194304 bytes");
    assertStringIncludes(await failure(() => readJson(join(dir, "none.json"))), "cannot import");
  });
});

Deno.test("checkEmail: lower-cased, or an error saying whose it was", () => {
  assertEquals(checkEmail(" Al@Example.org", "user al"), "al@example.org");
  let message = "";
  try {
    checkEmail("al", "user al");
  } catch (err) {
    message = (err as Error).message;
  }
  assertEquals(message, "user al: not an email address");
});

Deno.test("import session: users, connections and conversations are found, not doubled", async () => {
  await withDir(async (home) => {
    const config = { ...parseConfig({ PARLEY_HOME: home }), secret: "s".repeat(32) } as Config;
    const want = {
      connectionId: "libera",
      name: "Libera",
      url: "ircs://irc.libera.chat:6697?nick=al",
      onConnectCommands: ["/msg NickServ identify"],
      wantedState: "connected" as const,
    };
    {
      const s = await ImportSession.open(config);
      const user = await s.user("al@example.org", ["admin"]);
      const conn = await s.connection(user.id, want, "a.json");
      assertEquals(conn.connectionId, "libera");
      const again = await s.connection(user.id, { ...want, connectionId: "other" }, "b.json");
      assertEquals(again.id, conn.id, "the same server and nick is the same connection");
      // The id asked for is taken (or not an id at all): one is made from the host.
      const second = await s.connection(
        user.id,
        { ...want, url: "irc://irc.libera.chat/?nick=bo" },
        "c",
      );
      assert(second.connectionId !== "libera", second.connectionId);
      const odd = await s.connection(
        user.id,
        { ...want, connectionId: "../x", name: "n".repeat(200), url: "irc://h.example" },
        "d",
      );
      assert(/^[\w-]+$/.test(odd.connectionId), odd.connectionId);
      assertEquals(odd.name.length, 100);
      assertStringIncludes(
        await failure(() => s.connection(user.id, { ...want, url: "http://x" }, "e.json")),
        'cannot import e.json: the connection "Libera" has no usable server',
      );
      const room = await s.conversation(conn.id, "#Room", { joined: true, topic: "hi" });
      assertEquals((await s.conversation(conn.id, "#room")).id, room.id, "casefolded");
      const line = {
        conversation: room.id,
        userId: user.id,
        ts: 1_000_000,
        type: "private" as const,
        from: "bo",
        text: "a",
        highlight: false,
      };
      s.message(line);
      // A channel event of the same time and sender: another line, counted apart.
      const join = { ...line, type: "join" as const, text: "", fields: "{}" };
      s.message(join);
      assertEquals(s.summary, {
        users: 1,
        connections: 3,
        conversations: 1,
        messages: 1,
        events: 1,
        alreadyThere: 0,
        eventsAlreadyThere: 0,
        skipped: 0,
      });
      await s.finish();
    }
    {
      // A second run without --merge stops before writing for a user who has an account.
      const s = await ImportSession.open(config);
      assertStringIncludes(
        await failure(() => s.refuseExisting(["al@example.org", "new@example.org"])),
        "al@example.org already has an account",
      );
      await s.finish();
    }
    {
      const s = await ImportSession.open(config, { merge: true });
      const user = await s.user("al@example.org");
      const conn = await s.connection(user.id, want, "a.json");
      const room = await s.conversation(conn.id, "#room");
      const line = {
        conversation: room.id,
        userId: user.id,
        ts: 1_000_000,
        type: "private" as const,
        from: "bo",
        text: "a",
        highlight: false,
      };
      s.message(line);
      s.message({ ...line, type: "join", text: "", fields: "{}" });
      assertEquals(s.summary, {
        users: 0,
        connections: 0,
        conversations: 0,
        messages: 0,
        events: 0,
        alreadyThere: 1,
        eventsAlreadyThere: 1,
        skipped: 0,
      });
      await s.finish();
    }
    const store = await openSqliteStore(home);
    try {
      const user = await store.users.byEmail("al@example.org");
      assertEquals(user?.roles, ["admin"]);
      const conns = await store.connections.list(user!.id);
      assertEquals(conns.find((c) => c.connectionId === "libera")?.onConnectCommands, [
        "/msg NickServ identify",
      ]);
    } finally {
      await store.close();
    }
  });
});

Deno.test("import session: a user made by this run is found again without --merge", async () => {
  await withDir(async (home) => {
    const config = { ...parseConfig({ PARLEY_HOME: home }), secret: "s".repeat(32) } as Config;
    {
      // A source naming one person twice (two ZNC users, The Lounge and one of its networks).
      const s = await ImportSession.open(config);
      const first = await s.user("al@example.org", ["admin"]);
      const again = await s.user("al@example.org");
      assertEquals(again.id, first.id);
      assertEquals(s.summary.users, 1);
      assertEquals(s.newUsers, ["al@example.org"]);
      await s.finish();
    }
    {
      // One that existed before the run still needs --merge.
      const s = await ImportSession.open(config);
      assertStringIncludes(
        await failure(() => s.user("al@example.org")),
        "al@example.org already has an account",
      );
      await s.finish();
    }
  });
});
