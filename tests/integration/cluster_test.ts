/**
 * Two Parley nodes on one PostgreSQL and one ngircd: IRC reaches a browser socket on the node
 * that does not run the connection, a send from that node reaches IRC, and when the node running
 * the connection is killed (SIGKILL, no shutdown), the other takes it over, rejoins, and nothing
 * stored before is lost.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { EventSocket } from "../support/events.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { startPostgres } from "../support/postgres.ts";
import { clusterEnv, explainNodes, ownerWithBob, untilRelayed } from "../support/cluster.ts";
import { startServer, type TestServer } from "../support/server.ts";

const HISTORY = "/api/connection/irc-localhost/conversation/%23cluster/messages?limit=100";

Deno.test("two nodes on one PostgreSQL: events, forwarded sends, takeover after kill -9", async (t) => {
  const pg = await startPostgres();
  const irc = await startIrcServer();
  const url = await pg.database();
  const env = clusterEnv(url, "one secret for both nodes");
  const nodes: TestServer[] = [];
  let bob: RawIrcClient | undefined;
  let socket: EventSocket | undefined;
  const why = explainNodes(nodes, irc);
  try {
    const a = await startServer({ env });
    nodes.push(a);
    const onA = new ApiClient(a.url);
    await onA.register("owner@example.org");
    let b!: TestServer;
    let onB!: ApiClient;

    await t.step("the node that creates the connection runs it", async () => {
      bob = await ownerWithBob(onA, irc, why);
      assert(/cluster: running user uid=1/.test(a.output()), why());
      // Node b starts now: the user is taken, so it runs nobody.
      b = await startServer({ env });
      nodes.push(b);
      onB = new ApiClient(b.url);
      await onB.login("owner@example.org");
      assert(!/cluster: running user/.test(b.output()), "node b runs nobody");
    });

    await t.step("node b shows the connection as node a runs it", async () => {
      const list = await onB.get("/api/connections");
      assertEquals(list.body.connections[0].state, "connected");
    });

    await t.step("a message from IRC reaches a socket on node b, live", async () => {
      socket = await EventSocket.open(onB);
      await socket.waitFor((e) => e.event === "handshake");
      // Node a learns of the socket on node b before it relays: wait for the relay to work.
      await untilRelayed(bob!, socket);
      await bob!.say("#cluster", "hello from irc");
      const ev = await socket.waitFor((e) =>
        e.event === "message" && e.message === "hello from irc"
      );
      assertEquals([ev.connection_id, ev.conversation_id, ev.from], [
        "irc-localhost",
        "#cluster",
        "bob",
      ]);
    });

    await t.step("a send on node b goes out through node a", async () => {
      const sent = await socket!.request({
        method: "send",
        connection_id: "irc-localhost",
        conversation_id: "#cluster",
        message: "hello from node b",
      });
      assertEquals(sent.errors, undefined, JSON.stringify(sent));
      const line = await bob!.waitFor((l) =>
        l.command === "PRIVMSG" && l.params[1] === "hello from node b"
      );
      assertEquals(line.prefix?.split("!")[0], "owner");
    });

    await t.step("a highlight keyword set on node b highlights on node a", async () => {
      // Node a has the user's (empty) keywords cached since the first messages.
      const set = await onB.post("/api/user/owner@example.org", { highlight_keywords: ["kettle"] });
      assertEquals(set.status, 200, JSON.stringify(set.body));
      await new Promise((r) => setTimeout(r, 500)); // the change travels as a NOTIFY
      await bob!.say("#cluster", "the kettle is on");
      const ev = await socket!.waitFor((e) =>
        e.event === "message" && e.message === "the kettle is on"
      );
      assertEquals(ev.highlight, true);
    });

    await t.step("failed logins on node a count on node b", async () => {
      // One address's budget over all emails (50 failures in 10 minutes) is spent on node a...
      for (let i = 0; i < 50; i++) {
        const r = await new ApiClient(a.url).post("/api/user/login", {
          email: `guess${i}@example.org`,
          password: "wrong guess",
        });
        assertEquals(r.status, 400);
      }
      // ...and node b, told through NOTIFYs, makes the same address wait (one try: each counts).
      await new Promise((r) => setTimeout(r, 1000));
      const onNodeB = await new ApiClient(b.url).post("/api/user/login", {
        email: "someone@example.org",
        password: "wrong guess",
      });
      assertEquals(onNodeB.status, 429);
    });

    await t.step("kill -9 of node a: node b takes over, rejoins, keeps the history", async () => {
      for (let i = 0; i < 20; i++) await bob!.say("#cluster", `before the kill ${i}`);
      const stored = await poll("the lines stored", async () => {
        const page = await onB.get(HISTORY);
        const texts = page.body.messages.map((m: { message: string }) => m.message);
        return texts.includes("before the kill 19") ? texts : undefined;
      });
      await a.kill();
      // ngircd sees owner's socket close at once; owner comes back from node b.
      await bob!.waitFor((l) => l.command === "QUIT" && l.prefix?.startsWith("owner!") === true);
      const joinedAgain = await bob!.waitFor(
        (l) =>
          l.command === "JOIN" && l.prefix?.startsWith("owner!") === true &&
          bob!.lines.indexOf(l) > bob!.lines.findIndex((q) => q.command === "QUIT"),
        30_000,
      ).catch((err) => {
        throw new Error(`${err.message}\n${why()}`);
      });
      assert(joinedAgain, "owner rejoined #cluster");
      assert(/cluster: running user uid=1/.test(b.output()), why());
      const page = await onB.get(HISTORY);
      const texts = page.body.messages.map((m: { message: string }) => m.message);
      for (const line of stored) assert(texts.includes(line), `kept: ${line}`);
      // And it works from node b now: a send goes out.
      const sent = await socket!.request({
        method: "send",
        connection_id: "irc-localhost",
        conversation_id: "#cluster",
        message: "node b runs me now",
      });
      assertEquals(sent.errors, undefined, JSON.stringify(sent));
      await bob!.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "node b runs me now");
    });
  } finally {
    await socket?.close();
    await bob?.close();
    for (const n of nodes) await n.close();
    await irc.close();
    await pg.close();
  }
});
