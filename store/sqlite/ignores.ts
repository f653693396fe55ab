/** Ignore masks in SQLite (store/ignores.ts has the interface). */
import type { DatabaseSync } from "node:sqlite";
import { type IgnoreStore, MAX_IGNORES } from "../ignores.ts";

/** The SQLite implementation of IgnoreStore. */
export function sqliteIgnoreStore(db: DatabaseSync): IgnoreStore {
  let generation = 0;
  const q = {
    list: db.prepare("SELECT mask FROM ignores WHERE user_id = ? ORDER BY seq"),
    // One statement: the count, the place and the insert cannot be split by another add.
    add: db.prepare(
      `INSERT INTO ignores (user_id, mask, seq, created)
       SELECT ?, ?, coalesce(max(seq), 0) + 1, ? FROM ignores WHERE user_id = ?
       HAVING count(*) < ?
       ON CONFLICT DO NOTHING`,
    ),
    has: db.prepare("SELECT 1 FROM ignores WHERE user_id = ? AND mask = ?"),
    remove: db.prepare("DELETE FROM ignores WHERE user_id = ? AND mask = ?"),
  };
  return {
    get generation() {
      return generation;
    },
    list: (userId) =>
      Promise.resolve(q.list.all(userId).map((r) => String((r as { mask: string }).mask))),
    add(userId, mask) {
      if (q.has.get(userId, mask)) return Promise.resolve("exists");
      const r = q.add.run(userId, mask, Date.now(), userId, MAX_IGNORES);
      if (Number(r.changes) === 0) return Promise.resolve("full");
      generation++;
      return Promise.resolve("added");
    },
    remove(userId, mask) {
      const gone = Number(q.remove.run(userId, mask).changes) > 0;
      if (gone) generation++;
      return Promise.resolve(gone);
    },
  };
}
