/** Login sessions, keyed by a hash of the session id; a separate public id names them to users. */

/** A session as stored. */
interface SessionRecord {
  idHash: string;
  userId: number;
  /** Expiry in milliseconds since the epoch. */
  expires: number;
  /** When its user last gave their password in it (ms since the epoch); 0: never. */
  passwordAt: number;
}

/** A session as its user sees it on the account page (never its secret or the secret's hash). */
interface SessionInfo {
  /** Random, unrelated to the secret: safe to show and to put in a URL. */
  publicId: string;
  idHash: string;
  /** Milliseconds since the epoch. */
  created: number;
  lastUsed: number;
  expires: number;
  userAgent: string;
  address: string;
}

/**
 * Most sessions one user keeps: far more than devices, few enough that logging in from a script in
 * a loop does not fill the table and the account page's list. Past it, a new session ends the one
 * used longest ago.
 */
export const MAX_SESSIONS_PER_USER = 100;

/** Storage of sessions. */
export interface SessionStore {
  /**
   * `passwordAt`: when the user gave their password to open it (0: they did not). The user's
   * sessions past MAX_SESSIONS_PER_USER, those used longest ago, end.
   */
  create(idHash: string, userId: number, expires: number, passwordAt?: number): Promise<void>;
  get(idHash: string): Promise<SessionRecord | undefined>;
  /** Extends the expiry; the time of use is recorded with it. */
  touch(idHash: string, expires: number): Promise<void>;
  remove(idHash: string): Promise<void>;
  removeForUser(userId: number): Promise<void>;
  /** Deletes sessions that expired before `now` (ms). */
  purge(now: number): Promise<number>;
  /** A user's live sessions, the most recently used first. */
  listForUser(userId: number, now: number): Promise<SessionInfo[]>;
  /** Removes one session of a user by its public id; false when the user has no such session. */
  removePublic(userId: number, publicId: string): Promise<boolean>;
  /** Records the client (user agent, address) a session was last used from. */
  noteClient(idHash: string, userAgent: string, address: string): Promise<void>;
}
