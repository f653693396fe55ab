/**
 * Two nodes on one PostgreSQL, and node b's lock session away for longer than a scan (as while
 * PostgreSQL restarts, when each node's session comes back at its own next scan): node a counts b
 * as gone and forgets the sockets open on it. Once b is back its sockets are counted again, so
 * events published on node a reach them again; and after a real restart, a change made on node b
 * (told to the others by NOTIFY) still applies on node a.
 */
import { assertEquals } from "../support/assert.ts";
import { poll } from "../support/poll.ts";
import { type TwoNodes, twoNodes } from "../support/cluster.ts";
import postgres from "postgres";

const SECRET = "one secret for both nodes";

/** Waits until a line bob says reaches the socket on node b; the event. */
async function relayedAgain({ bob, socket, why }: TwoNodes, what: string) {
  let n = 0;
  return await poll(`an event from node a on node b's socket ${what}`, async () => {
    const text = `${what} ${n++}`;
    await bob.say("#cluster", text);
    return await socket.waitFor((e) => e.event === "message" && e.message === text, 300)
      .catch(() => undefined);
  }, 20_000).catch((err) => {
    throw new Error(`${err.message}\n${why()}`);
  });
}

Deno.test("a node whose session was away is counted again with its sockets", async () => {
  await twoNodes(SECRET, async (nodes) => {
    const sql = postgres(nodes.url, { max: 1, onnotice: () => {} });
    try {
      // b's lock session ended as often as it comes back, until a's scan has deleted b's sockets.
      await poll("node a counting b as gone", async () => {
        await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE application_name LIKE ${`parley-node:%:${nodes.nodeB}`}`;
        return (await sql`SELECT 1 FROM cluster_listeners WHERE node = ${nodes.nodeB}`).length ===
          0;
      });
    } finally {
      await sql.end();
    }
    // Node b says its sockets again at its next scan; until it does, node a relays nothing to
    // them.
    await relayedAgain(nodes, "after the session came back");
  });
});

Deno.test("PostgreSQL restarted under two nodes: events and changes cross again", async () => {
  await twoNodes(SECRET, async (nodes) => {
    const { pg, onB, bob, socket } = nodes;
    await pg.restart();
    await relayedAgain(nodes, "after the restart");
    // A highlight keyword set on node b travels to node a (which records the line) by NOTIFY.
    const set = await onB.post("/api/user/owner@example.org", { highlight_keywords: ["kettle"] });
    assertEquals(set.status, 200, JSON.stringify(set.body));
    let n = 0;
    await poll("a line highlighted on node a", async () => {
      const text = `the kettle is on ${n++}`;
      await bob.say("#cluster", text);
      const ev = await socket.waitFor((e) => e.event === "message" && e.message === text, 1000);
      return ev.highlight === true;
    });
  });
});
