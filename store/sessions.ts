/** Login sessions, keyed by a hash of the session id. */
import type { DatabaseSync } from "node:sqlite";

/** A session as stored. */
export interface SessionRecord {
  idHash: string;
  userId: number;
  /** Expiry in milliseconds since the epoch. */
  expires: number;
}

/** Storage of sessions. */
export interface SessionStore {
  create(idHash: string, userId: number, expires: number): Promise<void>;
  get(idHash: string): Promise<SessionRecord | undefined>;
  touch(idHash: string, expires: number): Promise<void>;
  remove(idHash: string): Promise<void>;
  removeForUser(userId: number): Promise<void>;
  /** Deletes sessions that expired before `now` (ms). */
  purge(now: number): Promise<number>;
}

/** A resolved promise for a synchronous statement whose result is not needed. */
const done = (_: unknown): Promise<void> => Promise.resolve();

/** The SQLite implementation of SessionStore. */
export function sqliteSessionStore(db: DatabaseSync): SessionStore {
  const q = {
    insert: db.prepare(
      "INSERT INTO sessions (id_hash, user_id, created, expires) VALUES (?, ?, ?, ?)",
    ),
    get: db.prepare("SELECT id_hash, user_id, expires FROM sessions WHERE id_hash = ?"),
    touch: db.prepare("UPDATE sessions SET expires = ? WHERE id_hash = ?"),
    remove: db.prepare("DELETE FROM sessions WHERE id_hash = ?"),
    removeForUser: db.prepare("DELETE FROM sessions WHERE user_id = ?"),
    purge: db.prepare("DELETE FROM sessions WHERE expires < ?"),
  };
  return {
    create: (idHash, userId, expires) => done(q.insert.run(idHash, userId, Date.now(), expires)),
    get(idHash) {
      const row = q.get.get(idHash) as
        | { id_hash: string; user_id: number; expires: number }
        | undefined;
      return Promise.resolve(
        row && { idHash: row.id_hash, userId: row.user_id, expires: row.expires },
      );
    },
    touch: (idHash, expires) => done(q.touch.run(expires, idHash)),
    remove: (idHash) => done(q.remove.run(idHash)),
    removeForUser: (userId) => done(q.removeForUser.run(userId)),
    purge: (now) => Promise.resolve(Number(q.purge.run(now).changes)),
  };
}
