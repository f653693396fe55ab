/**
 * Two Parley nodes on one PostgreSQL in the integration tests: their settings, what to say when
 * a wait on IRC fails, the owner's connection with bob beside them in #cluster, the wait until
 * node a relays to a socket on node b, and the whole of that set up.
 */
import { assertEquals } from "./assert.ts";
import { ApiClient } from "./api.ts";
import { EventSocket } from "./events.ts";
import { RawIrcClient } from "./irc_client.ts";
import { type IrcServer, startIrcServer } from "./ngircd.ts";
import { poll } from "./poll.ts";
import { type PgServer, startPostgres } from "./postgres.ts";
import { diagnose, startServer, type TestServer } from "./server.ts";

/** One node's settings: the shared database and secret, a quick ownership scan, quick IRC. */
export function clusterEnv(databaseUrl: string, secret: string): Record<string, string> {
  return {
    PARLEY_DATABASE_URL: databaseUrl,
    PARLEY_SECRET: secret,
    PARLEY_TEST_CLUSTER_SCAN_MS: "500",
    PARLEY_TEST_FAST_IRC: "1",
  };
}

/** What each node (a, b...) and the IRC server said of IRC, for a failure message. */
export function explainNodes(nodes: TestServer[], irc: { output(): string }): () => string {
  return () =>
    nodes.map((n, i) => `node ${"ab"[i]}:\n${diagnose(n.output(), irc.output())}`).join("\n");
}

/**
 * Gives the registered owner (as `api` is logged in) a connection to `irc` as "owner" in
 * #cluster, and has bob join there; resolves with bob once he sees the owner.
 */
export async function ownerWithBob(
  api: ApiClient,
  irc: { url: string; port: number },
  why: () => string,
): Promise<RawIrcClient> {
  const made = await api.post("/api/connections", {
    url: `${irc.url}?nick=owner`,
    conversation_id: "#cluster",
  });
  assertEquals(made.status, 200, JSON.stringify(made.body));
  const bob = await RawIrcClient.connect(irc.port, "bob");
  await bob.join("#cluster");
  await bob.waitForMember("#cluster", "owner").catch((err) => {
    throw new Error(`${err.message}\n${why()}`);
  });
  return bob;
}

/** Waits until bob's lines reach `socket` on node b: node a has learnt of the socket. */
export async function untilRelayed(bob: RawIrcClient, socket: EventSocket): Promise<void> {
  await poll("the socket on node b is known to node a", async () => {
    await bob.say("#cluster", `ping ${Date.now()}`);
    return await socket.waitFor((e) => e.event === "message", 300).then(() => true, () => false);
  });
}

/** Two nodes set up by `twoNodes`. */
export interface TwoNodes {
  pg: PgServer;
  irc: IrcServer;
  /** The nodes' database. */
  url: string;
  /** Node a runs the owner's connection; node b runs nobody. */
  a: TestServer;
  b: TestServer;
  /** The owner, logged in on each node. */
  onA: ApiClient;
  onB: ApiClient;
  /** Each node's id (`cluster node started node=...`). */
  nodeA: string;
  nodeB: string;
  bob: RawIrcClient;
  /** The owner's socket on node b, which node a relays to. */
  socket: EventSocket;
  why: () => string;
}

/**
 * PostgreSQL, ngircd and two nodes sharing `secret`: node a runs the owner's connection with bob
 * beside it in #cluster, node b has a socket of the owner's that node a relays to; all closed
 * after `fn`.
 */
export async function twoNodes(secret: string, fn: (n: TwoNodes) => Promise<void>): Promise<void> {
  const pg = await startPostgres();
  const irc = await startIrcServer();
  const url = await pg.database();
  const env = clusterEnv(url, secret);
  const nodes: TestServer[] = [];
  const why = explainNodes(nodes, irc);
  const nodeId = (n: TestServer) =>
    poll("the node's id", () => n.output().match(/cluster node started node=(\w+)/)?.[1]);
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
    const [nodeA, nodeB] = [await nodeId(a), await nodeId(b)];
    await fn({ pg, irc, url, a, b, onA, onB, nodeA, nodeB, bob, socket, why });
  } finally {
    await socket?.close();
    await bob?.close();
    for (const n of nodes) await n.close();
    await irc.close();
    await pg.close();
  }
}
