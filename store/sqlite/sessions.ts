/** Login sessions in SQLite (store/sessions.ts has the interface and its records). */
import type { DatabaseSync } from "node:sqlite";
import { randomId } from "../../lib/crypto.ts";
import type { SessionStore } from "../sessions.ts";

/** A resolved promise for a synchronous statement whose result is not needed. */
const done = (_: unknown): Promise<void> => Promise.resolve();

interface InfoRow {
  public_id: string;
  id_hash: string;
  created: number;
  last_used: number;
  expires: number;
  user_agent: string;
  address: string;
}

/** The SQLite implementation of SessionStore. */
export function sqliteSessionStore(db: DatabaseSync): SessionStore {
  const q = {
    insert: db.prepare(
      `INSERT INTO sessions (id_hash, user_id, created, expires, public_id, last_used, password_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    get: db.prepare(
      "SELECT id_hash, user_id, expires, password_at FROM sessions WHERE id_hash = ?",
    ),
    touch: db.prepare("UPDATE sessions SET expires = ?, last_used = ? WHERE id_hash = ?"),
    remove: db.prepare("DELETE FROM sessions WHERE id_hash = ?"),
    removeForUser: db.prepare("DELETE FROM sessions WHERE user_id = ?"),
    purge: db.prepare("DELETE FROM sessions WHERE expires < ?"),
    list: db.prepare(
      `SELECT public_id, id_hash, created, last_used, expires, user_agent, address FROM sessions
       WHERE user_id = ? AND expires > ? ORDER BY last_used DESC, created DESC`,
    ),
    removePublic: db.prepare("DELETE FROM sessions WHERE user_id = ? AND public_id = ?"),
    noteClient: db.prepare(
      "UPDATE sessions SET user_agent = ?, address = ?, last_used = ? WHERE id_hash = ?",
    ),
  };
  return {
    create(idHash, userId, expires, passwordAt = 0) {
      const now = Date.now();
      return done(q.insert.run(idHash, userId, now, expires, randomId(12), now, passwordAt));
    },
    get(idHash) {
      const row = q.get.get(idHash) as
        | { id_hash: string; user_id: number; expires: number; password_at: number }
        | undefined;
      return Promise.resolve(
        row && {
          idHash: row.id_hash,
          userId: row.user_id,
          expires: row.expires,
          passwordAt: row.password_at,
        },
      );
    },
    touch: (idHash, expires) => done(q.touch.run(expires, Date.now(), idHash)),
    remove: (idHash) => done(q.remove.run(idHash)),
    removeForUser: (userId) => done(q.removeForUser.run(userId)),
    purge: (now) => Promise.resolve(Number(q.purge.run(now).changes)),
    listForUser(userId, now) {
      const rows = q.list.all(userId, now) as unknown as InfoRow[];
      return Promise.resolve(rows.map((r) => ({
        publicId: r.public_id,
        idHash: r.id_hash,
        created: r.created,
        lastUsed: r.last_used,
        expires: r.expires,
        userAgent: r.user_agent,
        address: r.address,
      })));
    },
    removePublic: (userId, publicId) =>
      Promise.resolve(Number(q.removePublic.run(userId, publicId).changes) > 0),
    noteClient: (idHash, userAgent, address) =>
      done(q.noteClient.run(userAgent.slice(0, 300), address.slice(0, 100), Date.now(), idHash)),
  };
}
