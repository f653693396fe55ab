/**
 * What an IRC client logged in with, and what ends its session: an app token revoked, the password
 * changed or reset, the account suspended or deleted. A revocation is acted on by every node (the cluster
 * carries it, cluster/irc.ts), so a session ends wherever its client is attached.
 */
import { sha256Hex } from "../lib/crypto.ts";
import { log } from "../lib/log.ts";
import type { Store } from "../store/mod.ts";
import type { UserRecord } from "../store/users.ts";

/** The credential a session logged in with. */
export type Credential =
  | { kind: "token"; id: number }
  /** `generation` changes with every new password hash (each has its own salt). */
  | { kind: "password"; generation: string }
  /** A registered TLS client certificate (SASL EXTERNAL), by its SHA-256 fingerprint. */
  | { kind: "certificate"; fingerprint: string };

/** What ends sessions of a user. */
export type Revocation =
  /** This app token was revoked. */
  | { userId: number; kind: "token"; id: number }
  /** The password changed: sessions of any other password generation end. */
  | { userId: number; kind: "password"; generation: string }
  /** The account was deleted: every session ends. */
  | { userId: number; kind: "user" }
  /** The account was suspended: every session ends. */
  | { userId: number; kind: "suspended" }
  /** This certificate no longer logs the user in. */
  | { userId: number; kind: "certificate"; fingerprint: string };

/** The generation of a stored password hash (a digest: the hash itself need not travel). */
export async function passwordGeneration(passwordHash: string): Promise<string> {
  return (await sha256Hex(`parley password generation\0${passwordHash}`)).slice(0, 32);
}

/** Whether `r` ends a session of `userId` that logged in with `c` (undefined: not known). */
export function ends(r: Revocation, userId: number, c: Credential | undefined): boolean {
  if (r.userId !== userId) return false;
  if (r.kind === "user" || r.kind === "suspended") return true;
  if (r.kind === "token") return c?.kind === "token" && c.id === r.id;
  if (r.kind === "certificate") return c?.kind === "certificate" && c.fingerprint === r.fingerprint;
  return c?.kind === "password" && c.generation !== r.generation;
}

/** What a session is told as it is ended. */
export function endedText(r: Revocation): string {
  if (r.kind === "token") return "The app token was revoked";
  if (r.kind === "password") return "The password was changed";
  if (r.kind === "certificate") return "The certificate was removed";
  if (r.kind === "suspended") return "The account was suspended";
  return "The account was deleted";
}

/**
 * Whether the credential still lets the user in: a login checked just before a revocation, and
 * let in just after it, would otherwise escape it.
 */
export async function stillValid(
  store: Store,
  userId: number,
  c: Credential | undefined,
): Promise<boolean> {
  const user = await store.users.byId(userId);
  return !!user && await credentialHolds(store, user, c);
}

/** Whether the credential still lets `user` (as stored now) in. */
export async function credentialHolds(
  store: Store,
  user: UserRecord,
  c: Credential | undefined,
): Promise<boolean> {
  if (user.suspended) return false;
  if (c?.kind === "token") return (await store.appTokens.list(user.id)).some((t) => t.id === c.id);
  if (c?.kind === "password") return c.generation === await passwordGeneration(user.passwordHash);
  if (c?.kind === "certificate") return await store.certfp.owner(c.fingerprint) === user.id;
  return true;
}

/**
 * This node's revocations: what the routes and the CLI revoke is told to this node's listeners
 * (the bouncer) and, in a cluster, shared with the other nodes.
 */
export class Revocations {
  #listeners = new Set<(r: Revocation) => void>();
  #missed = new Set<() => void>();
  /** Set by the cluster: carries a revocation to the other nodes. */
  share?: (r: Revocation) => Promise<void>;

  /** Calls `fn` with every revocation this node acts on; returns the way to stop. */
  listen(fn: (r: Revocation) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /**
   * Calls `fn` whenever revocations may have been missed here (the other nodes' were not heard
   * for a while): whatever one would have ended is checked again. Returns the way to stop.
   */
  onMissed(fn: () => void): () => void {
    this.#missed.add(fn);
    return () => this.#missed.delete(fn);
  }

  /** Says that revocations may have been missed here. */
  missed(): void {
    for (const fn of this.#missed) fn();
  }

  /** Acts on a revocation here (from this node or another). */
  deliver(r: Revocation): void {
    for (const fn of this.#listeners) {
      try {
        fn(r);
      } catch (err) {
        log.error("revocation not acted on", { uid: r.userId, error: err });
      }
    }
  }

  /** Acts on a revocation here and on every other node. */
  async revoke(r: Revocation): Promise<void> {
    this.deliver(r);
    await this.share?.(r).catch((err) =>
      log.error("revocation not shared with the other nodes", { uid: r.userId, error: err })
    );
  }
}
