/**
 * `parley import thelounge` on a real home folder made by The Lounge 4.5.2 against ngircd
 * (tests/fixtures/thelounge, see make_thelounge.ts), then the daemon serving what came in; and
 * on a copy of it with the channel events the fixture lacks added in The Lounge's shapes.
 */
import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { parley } from "../support/cli.ts";

const FIXTURE = new URL("../fixtures/thelounge", import.meta.url).pathname;
const IMPORT = [
  "import",
  "thelounge",
  FIXTURE,
  "--domain",
  "example.org",
  "--email",
  "bob=bob@b.example",
];

/** Registers through the invite link the import printed for `email`. */
async function acceptInvite(base: string, stdout: string, email: string): Promise<ApiClient> {
  const line = stdout.split("\n").find((l) => l.startsWith(`invite for ${email}: `));
  assert(line, stdout);
  const link = new URL(line.slice(line.indexOf(": ") + 2));
  const api = new ApiClient(base);
  await api.register(email, "correct horse battery", {
    exp: link.searchParams.get("exp")!,
    token: link.searchParams.get("token")!,
  });
  return api;
}

Deno.test("import thelounge: users, networks, channels and history, once", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "parley-lounge-" });
  const env = { PARLEY_HOME: home };
  try {
    let first = "";
    await t.step("users without an email are refused before anything is written", async () => {
      const r = await parley(["import", "thelounge", FIXTURE], { env });
      assertEquals(r.code, 2);
      assertStringIncludes(r.stderr, '"alice" has no email');
    });
    await t.step("the import prints a summary and an invite per user", async () => {
      const r = await parley(IMPORT, { env });
      assertEquals(r.code, 0, r.stderr);
      first = r.stdout;
      assertStringIncludes(
        r.stdout,
        "imported: 2 users, 2 connections, 5 conversations, 92 messages, 8 channel events",
      );
    });
    await t.step("a second run without --merge is refused: the accounts exist now", async () => {
      const r = await parley(IMPORT, { env });
      assertEquals(r.code, 2);
      assertStringIncludes(r.stderr, "alice@example.org, bob@b.example already have accounts");
      assertStringIncludes(r.stderr, "--merge");
    });
    await t.step("a second run with --merge imports nothing twice", async () => {
      const r = await parley([...IMPORT, "--merge"], { env });
      assertEquals(r.code, 0, r.stderr);
      assertStringIncludes(
        r.stdout,
        "imported: 0 users, 0 connections, 0 conversations, 0 messages, 0 channel events",
      );
      assertStringIncludes(r.stdout, "(92 messages and 8 channel events were already there)");
    });
    await t.step(
      "the daemon serves it: connection, channels, history with timestamps, search",
      async () => {
        const server = await startServer({ home });
        try {
          const alice = await acceptInvite(server.url, first, "alice@example.org");
          const conns = await alice.get("/api/connections");
          assertEquals(conns.status, 200);
          const conn = conns.body.connections[0];
          assertEquals(conn.name, "Test Net");
          assertStringIncludes(conn.url, "nick=alice");
          assertEquals(conn.on_connect_commands, ["/mode alice +i"]);
          const convs = (await alice.get("/api/conversations")).body.conversations
            .map((c: { name: string }) => c.name).sort();
          assertEquals(convs, ["#parley", "#quiet", "carol"]);
          const cid = conn.connection_id;
          const page = await alice.get(
            `/api/connection/${cid}/conversation/${
              encodeURIComponent("#parley")
            }/messages?limit=200`,
          );
          const messages = page.body.messages as {
            from: string;
            message: string;
            ts: string;
            type: string;
            highlight?: boolean;
            fields?: Record<string, string>;
          }[];
          assertEquals(messages.length, 48, "43 messages, an action, a notice, 3 events");
          // The join, the topic change and the quit The Lounge logged, as Parley keeps its own.
          const events = messages.filter((m) => m.fields);
          assertEquals(
            events.map((m) => [m.type, m.from, m.fields, m.message, m.highlight === true]),
            [
              ["join", "alice", { nick: "alice" }, "alice joined.", false],
              [
                "topic",
                "carol",
                { nick: "carol", topic: "The topic of #parley" },
                "carol changed the topic to: The topic of #parley",
                false,
              ],
              ["quit", "carol", { nick: "carol", message: '"done"' }, 'carol quit: "done"', false],
            ],
          );
          assertEquals(events[0].ts, new Date(1795457346522).toISOString().replace("Z", "000Z"));
          const hello = messages.find((m) => m.message === "Hello from carol")!;
          // The Lounge's own millisecond timestamp, kept.
          // The time column of that row in logs/alice.sqlite3, in milliseconds, kept as it was.
          assertEquals(hello.ts, new Date(1795457346613).toISOString().replace("Z", "000Z"));
          assertEquals(messages.find((m) => m.type === "action")?.message, "waves at everyone");
          assertEquals(
            messages.find((m) => m.type === "notice")?.message,
            "a notice to the channel",
          );
          assertEquals(messages.find((m) => m.message.startsWith("alice:"))?.highlight, true);
          const found = await alice.get(`/api/search?match=${encodeURIComponent("emoji")}`);
          assertEquals(found.body.messages.map((m: { message: string }) => m.message), [
            "Ünïcode and emoji 🎉 survive",
          ]);
          const bob = await acceptInvite(server.url, first, "bob@b.example");
          const bobConn = (await bob.get("/api/connections")).body.connections[0];
          assertStringIncludes(bobConn.url, "sasl=plain");
          const pm = await bob.get(
            `/api/connection/${bobConn.connection_id}/conversation/carol/messages`,
          );
          assertEquals(pm.body.messages.map((m: { message: string }) => m.message), [
            "hi bob, this is private",
          ]);
        } finally {
          await server.stop();
        }
      },
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

/** A copy of the fixture (to add rows to one of its logs). */
async function copyFixture(to: string): Promise<void> {
  for (const sub of ["users", "logs"]) {
    await Deno.mkdir(`${to}/${sub}`, { recursive: true });
    for await (const e of Deno.readDir(`${FIXTURE}/${sub}`)) {
      await Deno.copyFile(`${FIXTURE}/${sub}/${e.name}`, `${to}/${sub}/${e.name}`);
    }
  }
}

/** alice's network in the fixture. */
const ALICE_NET = "87c07c96-4fe2-4bdd-badb-d68885cf362f";
/** After the fixture's last row. */
const T1 = 1795457400000;

Deno.test("import thelounge: parts, kicks, nick changes and modes as The Lounge logs them", async (t) => {
  const work = await Deno.makeTempDir({ prefix: "parley-lounge-events-" });
  const home = `${work}/home`;
  const env = { PARLEY_HOME: home };
  try {
    await Deno.mkdir(home);
    await copyFixture(`${work}/src`);
    // Rows as server/plugins/irc-events/{part,kick,nick,mode}.ts of The Lounge 4.5.2 write them
    // (the Msg's fields but id, previews, type and time), in the fixture's #parley.
    const log = new DatabaseSync(`${work}/src/logs/alice.sqlite3`);
    const add = (type: string, msg: unknown, channel = "#parley") =>
      log.prepare("INSERT INTO messages (network, channel, time, type, msg) VALUES (?, ?, ?, ?, ?)")
        .run(ALICE_NET, channel, T1 + 1000 * add.n++, type, JSON.stringify(msg));
    add.n = 0;
    const from = (nick: string) => ({ mode: "", nick });
    add("join", { from: from("dave"), hostmask: "~dave@127.0.0.1", gecos: "", self: false });
    add("mode", { from: from("carol"), text: "+v dave", self: false, users: ["dave"] });
    add("mode", { from: from("carol"), text: "+m ", self: false });
    add("nick", { from: from("dave"), new_nick: "dave2", self: false, text: "" });
    add("part", { from: from("dave2"), text: "off (for now)", hostmask: "~dave@127.0.0.1" });
    add("join", { from: from("dave2"), hostmask: "~dave@127.0.0.1", self: false });
    add("kick", {
      from: from("carol"),
      target: from("dave2"),
      text: "",
      highlight: false,
      self: false,
    });
    add("topic", { from: from("carol"), text: "", self: false });
    log.close();
    const args = ["import", "thelounge", `${work}/src`, "--domain", "example.org"];

    let first = "";
    await t.step("every event comes in", async () => {
      const r = await parley(args, { env });
      assertEquals(r.code, 0, r.stderr);
      first = r.stdout;
      assertStringIncludes(r.stdout, "92 messages, 16 channel events");
    });
    await t.step("a second run adds nothing", async () => {
      const r = await parley([...args, "--merge"], { env });
      assertEquals(r.code, 0, r.stderr);
      assertStringIncludes(r.stdout, "0 messages, 0 channel events");
      assertStringIncludes(r.stdout, "(92 messages and 16 channel events were already there)");
    });
    await t.step("the history API reads them as live events", async () => {
      const server = await startServer({ home });
      try {
        const alice = await acceptInvite(server.url, first, "alice@example.org");
        const cid = (await alice.get("/api/connections")).body.connections[0].connection_id;
        const page = await alice.get(
          `/api/connection/${cid}/conversation/${encodeURIComponent("#parley")}/messages?after=${
            new Date(T1 - 1).toISOString()
          }`,
        );
        const got = page.body.messages as {
          type: string;
          from: string;
          message: string;
          fields?: Record<string, string>;
        }[];
        assertEquals(got.map((m) => [m.type, m.from, m.fields, m.message]), [
          ["join", "dave", { nick: "dave" }, "dave joined."],
          ["mode", "carol", { nick: "carol", mode: "+v dave" }, "carol set mode +v dave."],
          ["mode", "carol", { nick: "carol", mode: "+m" }, "carol set mode +m."],
          [
            "nick_change",
            "dave",
            { old_nick: "dave", new_nick: "dave2" },
            "dave is now known as dave2.",
          ],
          [
            "part",
            "dave2",
            { nick: "dave2", message: "off (for now)" },
            "dave2 left: off (for now)",
          ],
          ["join", "dave2", { nick: "dave2" }, "dave2 joined."],
          ["kick", "carol", { nick: "dave2", kicker: "carol" }, "dave2 was kicked by carol."],
          ["topic", "carol", { nick: "carol", topic: "" }, "carol cleared the topic."],
        ]);
      } finally {
        await server.stop();
      }
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
