/** `parley import convos` on a folder in Convos 8.07's file-backend formats, then the daemon serving it. */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { parley } from "../support/cli.ts";

const FIXTURE = new URL("../fixtures/convos", import.meta.url).pathname;

/** Copies a folder tree (the fixture, to damage a copy of it). */
async function copy(from: string, to: string): Promise<void> {
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) {
      await Deno.mkdir(`${to}/${e.name}`);
      await copy(`${from}/${e.name}`, `${to}/${e.name}`);
    } else await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}

Deno.test("import convos: users, connections, conversations and monthly logs, once", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "parley-convos-" });
  const env = { PARLEY_HOME: home };
  try {
    let first = "";
    await t.step("summary and invites", async () => {
      const r = await parley(["import", "convos", FIXTURE], { env });
      assertEquals(r.code, 0, r.stderr);
      // Convos 8 logs no channel events: the fixture's "-!-" lines (forms its file backend
      // declares but has not written since 2016) are skipped and counted, not made events.
      assertStringIncludes(
        r.stdout,
        "imported: 2 users, 2 connections, 5 conversations, 12 messages, 0 channel events " +
          "(2 skipped: no matching network, or not a message or channel event)",
      );
      assertStringIncludes(r.stdout, "invite for alice@example.org: ");
      // Without PARLEY_BASE_URL the links start with the listen URL; the note says what to pass.
      assertStringIncludes(r.stderr, "PARLEY_BASE_URL is not set");
      first = r.stdout;
    });
    await t.step("a second run without --merge is refused, naming the accounts", async () => {
      const r = await parley(["import", "convos", FIXTURE], { env });
      assertEquals(r.code, 2);
      assertStringIncludes(r.stderr, "alice@example.org, bob@example.org already have accounts");
    });
    await t.step("a second run with --merge imports nothing twice", async () => {
      const r = await parley(["import", "convos", FIXTURE, "--merge"], { env });
      assertEquals(r.code, 0, r.stderr);
      assertStringIncludes(
        r.stdout,
        "imported: 0 users, 0 connections, 0 conversations, 0 messages, 0 channel events " +
          "(12 messages were already there)",
      );
    });
    await t.step("the daemon serves the history with Convos's timestamps", async () => {
      const server = await startServer({ home, env: { PARLEY_CONNECT_DELAY: "0" } });
      try {
        const line = first.split("\n").find((l) => l.startsWith("invite for alice@example.org: "))!;
        const link = new URL(line.slice(line.indexOf(": ") + 2));
        const alice = new ApiClient(server.url);
        const me = await alice.register("alice@example.org", "correct horse battery", {
          exp: link.searchParams.get("exp")!,
          token: link.searchParams.get("token")!,
        });
        assertEquals(me.roles, ["admin"], "a Convos admin stays an admin");
        assertEquals(me.highlight_keywords, ["parley"]);
        const conns = (await alice.get("/api/connections")).body.connections;
        const libera = conns.find((c: { connection_id: string }) =>
          c.connection_id === "irc-libera"
        );
        assert(libera, JSON.stringify(conns));
        assertEquals(libera.on_connect_commands, ["/msg NickServ identify hunter22"]);
        const local = conns.find((c: { connection_id: string }) => c.connection_id === "irc-local");
        assertEquals(local.wanted_state, "disconnected");
        const page = await alice.get(
          `/api/connection/irc-libera/conversation/${
            encodeURIComponent("#convos")
          }/messages?limit=100`,
        );
        const msgs = page.body.messages as {
          from: string;
          message: string;
          ts: string;
          type: string;
          highlight?: boolean;
        }[];
        assertEquals(msgs.map((m) => [m.ts, m.type, m.from, m.message]), [
          ["2024-12-31T23:00:00.000000Z", "private", "dave", "last message of the year"],
          ["2024-12-31T23:00:00.000001Z", "private", "erin", "same second, next line"],
          ["2024-12-31T23:10:00.000000Z", "private", "dave", "alice: happy new year"],
          ["2025-01-02T08:00:00.000000Z", "private", "alice", "back to work"],
          ["2025-01-02T08:00:05.000000Z", "action", "dave", "waves"],
          ["2025-01-02T08:01:00.000000Z", "notice", "ChanServ", "[#convos] Welcome"],
          [
            "2025-01-02T08:03:00.000000Z",
            "private",
            "erin",
            "Ünïcode survives 🎉 and so does parley",
          ],
          ["2025-01-02T08:04:00.000000Z", "private", "dave", "an old line without a flag"],
        ]);
        assertEquals(msgs[2].highlight, true, "Convos's highlight flag is kept");
        const found = await alice.get("/api/search?match=survives");
        assertEquals(found.body.messages.length, 1);
      } finally {
        await server.stop();
      }
    });
    await t.step("an unreadable file stops the import with its name", async () => {
      const broken = await Deno.makeTempDir({ prefix: "convos-broken-" });
      try {
        await copy(FIXTURE, broken);
        const bad = `${broken}/alice@example.org/irc-libera/connection.json`;
        await Deno.writeTextFile(bad, "{not json");
        const other = await Deno.makeTempDir({ prefix: "parley-convos-bad-" });
        const r = await parley(["import", "convos", broken], { env: { PARLEY_HOME: other } });
        await Deno.remove(other, { recursive: true });
        assertEquals(r.code, 2);
        assertStringIncludes(r.stderr, `cannot import ${bad}`);
      } finally {
        await Deno.remove(broken, { recursive: true });
      }
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
