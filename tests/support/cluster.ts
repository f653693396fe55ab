/**
 * Two Parley nodes on one PostgreSQL in the integration tests: their settings, what to say when
 * a wait on IRC fails, the owner's connection with bob beside them in #cluster, and the wait
 * until node a relays to a socket on node b.
 */
import { assertEquals } from "./assert.ts";
import type { ApiClient } from "./api.ts";
import type { EventSocket } from "./events.ts";
import { RawIrcClient } from "./irc_client.ts";
import { poll } from "./poll.ts";
import { diagnose, type TestServer } from "./server.ts";

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
