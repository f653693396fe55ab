/**
 * Two nodes on one PostgreSQL, and node b's lock session away for longer than a scan (as while
 * PostgreSQL restarts, when each node's session comes back at its own next scan): node a counts b
 * as gone and forgets the sockets open on it. Once b is back its sockets are counted again, so
 * events published on node a reach them again; and after a real restart, a change made on node b
 * (told to the others by NOTIFY) still applies on node a.
 */
import { assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { EventSocket } from "../support/events.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { type PgServer, startPostgres } from "../support/postgres.ts";
import { clusterEnv, explainNodes, ownerWithBob, untilRelayed } from "../support/cluster.ts";
import { startServer, type TestServer } from "../support/server.ts";
import postgres from "postgres";

interface TwoNodes {
  pg: PgServer;
  sql: postgres.Sql;
  b: TestServer;
  onB: ApiClient;
  bob: RawIrcClient;
  /** The owner's socket on node b. */
  socket: EventSocket;
  why: () => string;
}

/** Node a runs the owner's connection (bob beside it in #cluster); a socket of theirs on node b. */
async function twoNodes(fn: (n: TwoNodes) => Promise<void>) {
  const pg = await startPostgres();
  const irc = await startIrcServer();
  const url = await pg.database();
  const env = clusterEnv(url, "one secret for both nodes");
  const nodes: TestServer[] = [];
  const why = explainNodes(nodes, irc);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  let bob: RawIrcClient | undefined;
  let socket: EventSocket | undefined;
  try {
    const a = await startServer({ env });
    nodes.push(a);
    const onA = new ApiClient(a.url);
    await onA.register("owner@example.org");
    bob = await ownerWithBob(onA, irc, why);
    const b = await startServer({ env });
    nodes.push(b);
    const onB = new ApiClient(b.url);
    await onB.login("owner@example.org");
    socket = await EventSocket.open(onB);
    await socket.waitFor((e) => e.event === "handshake");
    await untilRelayed(bob, socket);
    await fn({ pg, sql, b, onB, bob, socket, why });
  } finally {
    await socket?.close();
    await bob?.close();
    await sql.end();
    for (const n of nodes) await n.close();
    await irc.close();
    await pg.close();
  }
}

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
  await twoNodes(async (nodes) => {
    const { b, sql } = nodes;
    const nodeB = await poll(
      "node b's id",
      () => b.output().match(/cluster node started node=(\w+)/)?.[1],
    );
    // b's lock session ended as often as it comes back, until a's scan has deleted b's sockets.
    await poll("node a counting b as gone", async () => {
      await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name LIKE ${`parley-node:%:${nodeB}`}`;
      return (await sql`SELECT 1 FROM cluster_listeners WHERE node = ${nodeB}`).length === 0;
    });
    // Before, b never said its sockets again: node a relayed nothing to them until one of them
    // closed or another opened.
    await relayedAgain(nodes, "after the session came back");
  });
});

Deno.test("PostgreSQL restarted under two nodes: events and changes cross again", async () => {
  await twoNodes(async (nodes) => {
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
