/**
 * `parley import thelounge` on a real home folder made by The Lounge 4.5.2 against ngircd
 * (tests/fixtures/thelounge, see make_thelounge.ts), then the daemon serving what came in.
 */
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
      assertStringIncludes(
        r.stdout,
        "imported: 2 users, 2 connections, 5 conversations, 92 messages",
      );
      first = r.stdout;
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
        "imported: 0 users, 0 connections, 0 conversations, 0 messages",
      );
      assertStringIncludes(r.stdout, "92 messages were already there");
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
          }[];
          assertEquals(
            messages.length,
            45,
            "43 messages, an action, a notice; joins, topic, quit are not",
          );
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
