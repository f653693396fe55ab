/**
 * Two Parley nodes on one PostgreSQL and one ngircd, and a database role with no table privilege
 * (what PUBLIC may do by default: connect, LISTEN, NOTIFY). It reads no message crossing the
 * nodes, and what it sends (forged in the old plain format, or recorded and played back) makes no
 * node send on IRC, show anything in a browser or throttle a login. And `parley user delete`, run elsewhere, stops
 * the deleted user's IRC connection on the node that runs it.
 */
import postgres from "postgres";
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { parley } from "../support/cli.ts";
import { poll } from "../support/poll.ts";
import { twoNodes } from "../support/cluster.ts";

const SECRET = "one secret for both nodes";

Deno.test("cluster: a role without privileges can neither read nor forge what nodes say", async (t) => {
  await twoNodes(SECRET, async ({ a, b, url, irc, nodeA, bob, socket, why }) => {
    const cliHome = await Deno.makeTempDir({ prefix: "parley-cli-" });
    let intruder: postgres.Sql | undefined;
    const byOwner = (text: string) =>
      bob.lines.filter((l) =>
        l.command === "PRIVMSG" && l.prefix?.startsWith("owner!") && l.params[1] === text
      ).length;
    /** Sends `message` to #cluster from the socket on node b; resolves once bob has it. */
    const sentToBob = async (message: string) => {
      const sent = await socket.request({
        method: "send",
        connection_id: "irc-localhost",
        conversation_id: "#cluster",
        message,
      });
      assertEquals(sent.errors, undefined, JSON.stringify(sent));
      await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === message);
    };
    const shown = (text: string) =>
      socket.events.filter((e) => e.event === "message" && e.message === text).length;
    try {
      // The role: may connect (PUBLIC's default), holds nothing else.
      const admin = postgres(url, { max: 1, onnotice: () => {} });
      await admin`CREATE ROLE intruder LOGIN`;
      await admin.end();
      intruder = postgres(url.replace("//parley@", "//intruder@"), { max: 1, onnotice: () => {} });
      const events: string[] = [];
      const calls: string[] = [];
      await intruder.listen("parley_events", (p) => events.push(p));
      await intruder.listen(`parley_rpc_${nodeA}`, (p) => calls.push(p));
      const logins: string[] = [];
      await intruder.listen("parley_logins", (p) => logins.push(p));

      await t.step("what crosses the nodes is unreadable to the role", async () => {
        await bob.say("#cluster", "the secret plan");
        await socket.waitFor((e) => e.event === "message" && e.message === "the secret plan");
        await poll("the event seen crossing", () => events.length > 0);
        await sentToBob("my private reply");
        await poll("the call seen crossing", () => calls.length > 0);
        for (const payload of [...events, ...calls]) {
          assert(!/secret plan|private reply|#cluster|irc-localhost/.test(payload), payload);
        }
      });

      await t.step("a forged or replayed call sends nothing on IRC", async () => {
        await intruder!.notify(
          `parley_rpc_${nodeA}`,
          JSON.stringify({
            m: {
              id: 99,
              from: "nobody",
              method: "send",
              args: [1, "irc-localhost", "#cluster", "forged by a role with no privileges"],
            },
          }),
        );
        for (const payload of calls) await intruder!.notify(`parley_rpc_${nodeA}`, payload);
        // Node a reads its calls in order: once this one is out, the others were dealt with.
        await sentToBob("after the forgeries");
        assertEquals(byOwner("forged by a role with no privileges"), 0);
        assertEquals(byOwner("my private reply"), 1);
      });

      await t.step("a forged or replayed event shows nothing in a browser", async () => {
        await intruder!.notify(
          "parley_events",
          JSON.stringify({
            m: {
              node: "nobody",
              user: 1,
              ev: {
                event: "message",
                connection_id: "irc-localhost",
                conversation_id: "#cluster",
                from: "irc-localhost",
                type: "notice",
                message: "re-enter your password",
                ts: new Date().toISOString(),
              },
            },
          }),
        );
        for (const payload of events) await intruder!.notify("parley_events", payload);
        await bob.say("#cluster", "after the forged events");
        await socket.waitFor((e) =>
          e.event === "message" && e.message === "after the forged events"
        );
        assertEquals(shown("re-enter your password"), 0);
        assertEquals(shown("the secret plan"), 1);
      });

      await t.step("forged or replayed login failures throttle nobody", async () => {
        const failed = await new ApiClient(b.url).post("/api/user/login", {
          email: "owner@example.org",
          password: "wrong guess",
        });
        assertEquals(failed.status, 400);
        await poll("the failure seen crossing", () => logins.length > 0);
        assert(!logins.some((p) => p.includes("owner@")), logins[0]);
        // Past the address's budget over all emails (50), were they believed.
        for (let i = 0; i < 60; i++) {
          await intruder!.notify(
            "parley_logins",
            JSON.stringify({
              m: {
                node: "nobody",
                kind: "fail",
                email: `victim${i}@example.org`,
                address: "127.0.0.1",
                now: Date.now(),
              },
            }),
          );
          await intruder!.notify("parley_logins", logins[0]);
        }
        // Node a handles its messages in the order they were sent: once this call is out, the
        // forgeries were dealt with.
        await socket.request({
          method: "send",
          connection_id: "irc-localhost",
          conversation_id: "#cluster",
          message: "after the forged login failures",
        });
        await bob.waitFor((l) =>
          l.command === "PRIVMSG" && l.params[1] === "after the forged login failures"
        );
        const login = await new ApiClient(a.url).post("/api/user/login", {
          email: "owner@example.org",
          password: "correct horse battery",
        });
        assertEquals(login.status, 200, JSON.stringify(login.body));
      });

      await t.step(
        "`parley user delete` stops the user's IRC connection where it runs",
        async () => {
          const cliEnv = { PARLEY_HOME: cliHome, PARLEY_DATABASE_URL: url, PARLEY_SECRET: SECRET };
          const added = await parley(["user", "add", "gone@example.org"], {
            env: cliEnv,
            stdin: "correct horse battery\n",
          });
          assertEquals(added.code, 0, added.stderr);
          const gone = new ApiClient(a.url);
          await gone.login("gone@example.org");
          const conn = await gone.post("/api/connections", {
            url: `${irc.url}?nick=gone`,
            conversation_id: "#cluster",
          });
          assertEquals(conn.status, 200, JSON.stringify(conn.body));
          await bob.waitForMember("#cluster", "gone");
          const deleted = await parley(["user", "delete", "gone@example.org"], { env: cliEnv });
          assertEquals(deleted.code, 0, deleted.stderr);
          await bob.waitFor((l) => l.command === "QUIT" && l.prefix?.startsWith("gone!") === true)
            .catch((err) => {
              throw new Error(`${err.message}\n${why()}`);
            });
          // Stopped before its rows went, and not started again from them by either node (each
          // scans every 500 ms): its last lines were stored, not refused by the database.
          const joins = () =>
            bob.lines.filter((l) => l.command === "JOIN" && l.prefix?.startsWith("gone!")).length;
          const before = joins();
          await new Promise((r) => setTimeout(r, 3_000));
          assertEquals(joins(), before, `the deleted user came back\n${why()}`);
          for (const node of [a, b]) {
            assert(!node.output().includes("violates foreign key"), why());
          }
        },
      );
    } finally {
      await intruder?.end();
      await Deno.remove(cliHome, { recursive: true });
    }
  });
});
