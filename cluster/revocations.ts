/**
 * Revocations across nodes (bouncer/credentials.ts): a revoked app token, a changed password or a
 * deleted user ends the IRC sessions it let in on every node. Each is sent on `parley_revocations`;
 * every node acts on it and, when asked, answers that it did, so that a command run from the shell
 * knows whether the nodes heard it (nodes with another secret cannot read it, and do not answer).
 */
import type { Revocation, Revocations } from "../bouncer/credentials.ts";
import type { PgChannel } from "./channel.ts";
import { liveNodes, NODE_APP, nodeScope } from "./ownership.ts";
import { log } from "../lib/log.ts";

const CHANNEL = "parley_revocations";

interface RevocationMessage {
  from: string;
  r: Revocation;
  /** Where to answer, when the sender waits for the nodes. */
  answer?: string;
}

/**
 * Has `node` share what `revocations` revokes and act on what the others revoke; returns the
 * listen to start with the node.
 */
export function shareRevocations(
  channel: PgChannel,
  node: string,
  revocations: Revocations,
  ready: () => Promise<void>,
): () => Promise<() => Promise<void>> {
  revocations.share = async (r) => {
    await ready();
    await channel.send(CHANNEL, { from: node, r } satisfies RevocationMessage);
  };
  return () =>
    channel.listen(
      CHANNEL,
      (m) => {
        const msg = m as RevocationMessage;
        if (msg.from === node) return;
        revocations.deliver(msg.r);
        if (msg.answer) {
          // The revocation was applied here; only the asker's count misses this node.
          channel.send(msg.answer, { node }).catch((err) =>
            log.debug("cluster: could not answer a revocation", { error: String(err) })
          );
        }
      },
      // Listening again after the session was lost: a revocation sent meanwhile was not heard.
      () => revocations.missed(),
    );
}

/** What the nodes did with a revocation sent from outside them. */
export interface Heard {
  /** Nodes running on the database (whatever their secret). */
  nodes: number;
  /** Nodes that answered. */
  answered: number;
}

/**
 * Sends a revocation to every node from a command run beside them and waits (at most `waitMs`)
 * until each node of this secret answered. A node with another secret cannot read it: it is
 * counted among `nodes` and never among `answered`.
 */
export async function revokeEverywhere(
  channel: PgChannel,
  secret: string,
  r: Revocation,
  waitMs = 5_000,
): Promise<Heard> {
  const all = await liveNodes(channel.sql, NODE_APP);
  if (!all.length) return { nodes: 0, answered: 0 };
  const ours = await liveNodes(channel.sql, (await nodeScope(secret)).prefix);
  if (!ours.length) return { nodes: all.length, answered: 0 };
  const self = `parley_revoked_cli${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const answered = new Set<string>();
  let done = () => {};
  const allIn = new Promise<void>((resolve) => done = resolve);
  const unlisten = await channel.listen(self, (m) => {
    answered.add((m as { node: string }).node);
    if (ours.every((n) => answered.has(n))) done();
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await channel.send(CHANNEL, { from: self, r, answer: self } satisfies RevocationMessage);
    await Promise.race([allIn, new Promise((r) => timer = setTimeout(r, waitMs))]);
  } finally {
    clearTimeout(timer);
    // why: the answers are counted already; a failed unlisten ends with the connection.
    await unlisten().catch(() => {});
  }
  return { nodes: all.length, answered: answered.size };
}
