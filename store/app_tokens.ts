/**
 * App tokens: passwords a user makes for one IRC client each (shown once, stored only as a hash),
 * so the account password need not be typed into every client, and one lost device's token can be
 * revoked alone.
 */

/** A token as its user sees it (never the token, never its hash). */
export interface AppTokenRecord {
  id: number;
  userId: number;
  name: string;
  /** Milliseconds since the epoch; lastUsed is 0 until the first login. */
  created: number;
  lastUsed: number;
}

/** Most tokens one user keeps: one per IRC client, with room to spare. */
export const MAX_APP_TOKENS = 100;

/** Storage of app tokens. */
export interface AppTokenStore {
  /** Makes a token; undefined when the user has MAX_APP_TOKENS already. */
  create(userId: number, name: string, hash: string): Promise<AppTokenRecord | undefined>;
  /** A user's tokens, the newest first. */
  list(userId: number): Promise<AppTokenRecord[]>;
  /** The id of the user's token with this hash, when there is one. */
  find(userId: number, hash: string): Promise<number | undefined>;
  /** Records a login with the token. */
  used(id: number, now: number): Promise<void>;
  /** Revokes one of the user's tokens; false when the user has no such token. */
  remove(userId: number, id: number): Promise<boolean>;
}
