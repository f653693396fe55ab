/** App tokens in SQLite (store/app_tokens.ts has the interface). */
import type { DatabaseSync } from "node:sqlite";
import { type AppTokenRow, type AppTokenStore, toAppToken } from "../app_tokens.ts";

/** The SQLite implementation of AppTokenStore. */
export function sqliteAppTokenStore(db: DatabaseSync): AppTokenStore {
  const cols = "id, user_id, name, created, last_used";
  const q = {
    insert: db.prepare(
      `INSERT INTO app_tokens (user_id, name, token_hash, created, last_used) VALUES (?, ?, ?, ?, 0)
       RETURNING ${cols}`,
    ),
    list: db.prepare(`SELECT ${cols} FROM app_tokens WHERE user_id = ? ORDER BY id DESC`),
    find: db.prepare("SELECT id FROM app_tokens WHERE user_id = ? AND token_hash = ?"),
    used: db.prepare("UPDATE app_tokens SET last_used = ? WHERE id = ?"),
    remove: db.prepare("DELETE FROM app_tokens WHERE user_id = ? AND id = ?"),
  };
  return {
    create: (userId, name, hash) =>
      Promise.resolve(
        toAppToken(q.insert.get(userId, name, hash, Date.now()) as unknown as AppTokenRow),
      ),
    list: (userId) =>
      Promise.resolve((q.list.all(userId) as unknown as AppTokenRow[]).map(toAppToken)),
    find: (userId, hash) => {
      const row = q.find.get(userId, hash) as { id: number } | undefined;
      return Promise.resolve(row ? Number(row.id) : undefined);
    },
    used: (id, now) => {
      q.used.run(now, id);
      return Promise.resolve();
    },
    remove: (userId, id) => Promise.resolve(Number(q.remove.run(userId, id).changes) > 0),
  };
}
