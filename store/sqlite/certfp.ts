/** Registered certificate fingerprints in SQLite (store/certfp.ts has the interface). */
import type { DatabaseSync } from "node:sqlite";
import { type CertfpRow, type CertfpStore, toCertfp } from "../certfp.ts";

/** The SQLite implementation of CertfpStore. */
export function sqliteCertfpStore(db: DatabaseSync): CertfpStore {
  const q = {
    insert: db.prepare(
      "INSERT INTO certfps (fingerprint, user_id, created) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
    ),
    list: db.prepare(
      "SELECT user_id, fingerprint, created FROM certfps WHERE user_id = ? ORDER BY created, rowid",
    ),
    remove: db.prepare("DELETE FROM certfps WHERE user_id = ? AND fingerprint = ?"),
    owner: db.prepare("SELECT user_id FROM certfps WHERE fingerprint = ?"),
  };
  return {
    add: (userId, fp) => Promise.resolve(Number(q.insert.run(fp, userId, Date.now()).changes) > 0),
    list: (userId) => Promise.resolve((q.list.all(userId) as unknown as CertfpRow[]).map(toCertfp)),
    remove: (userId, fp) => Promise.resolve(Number(q.remove.run(userId, fp).changes) > 0),
    owner: (fp) => {
      const row = q.owner.get(fp) as { user_id: number } | undefined;
      return Promise.resolve(row ? Number(row.user_id) : undefined);
    },
  };
}
