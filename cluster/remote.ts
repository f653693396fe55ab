/**
 * What a command run from the shell asks of the running nodes: it is no node itself (it runs
 * nobody), only a caller with a channel of its own for the answers.
 */
import type { PgStore } from "../store/pg/mod.ts";
import { PgChannel } from "./channel.ts";
import { nodeScope, ownerOf } from "./ownership.ts";
import { Rpc } from "./rpc.ts";
import type { Revocation } from "../bouncer/credentials.ts";
import { type Heard, revokeEverywhere } from "./revocations.ts";

/**
 * Ends, on every node, the IRC sessions `r` revokes; says how many nodes run and how many
 * answered (a node with another secret cannot).
 */
export function revokeOnNodes(store: PgStore, secret: string, r: Revocation): Promise<Heard> {
  return revokeEverywhere(new PgChannel(store.sql, secret), secret, r);
}

/** Calls `method` on the node that runs the user, if any does; returns that node's id. */
async function callOwner(
  store: PgStore,
  secret: string,
  userId: number,
  method: string,
  args: unknown[],
): Promise<string | undefined> {
  const owner = await ownerOf(store.sql, await nodeScope(secret), userId);
  if (!owner) return undefined;
  const self = `cli${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const rpc = new Rpc(new PgChannel(store.sql, secret), self, {});
  await rpc.start();
  try {
    await rpc.call(owner, method, args);
  } finally {
    await rpc.stop();
  }
  return owner;
}

/**
 * Stops a deleted user's IRC connections on the node that runs them (if any does) and frees the
 * user; returns that node's id. `secret` is the one the nodes share.
 */
export function stopDeletedUser(
  store: PgStore,
  secret: string,
  userId: number,
): Promise<string | undefined> {
  return callOwner(store, secret, userId, "userDeleted", [userId]);
}

/**
 * Tells the node that runs the user (if any does) of a suspension: it stops their IRC connections
 * and keeps the user, so no other node takes them; or of its end: it starts them again. With no
 * such node, a node's next scan takes a user back. Returns that node's id.
 */
export function tellSuspension(
  store: PgStore,
  secret: string,
  userId: number,
  suspended: boolean,
): Promise<string | undefined> {
  return callOwner(store, secret, userId, "userSuspended", [userId, suspended]);
}
