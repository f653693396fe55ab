/** Connection profiles in SQLite (store/profiles.ts has the interface and its records). */
import type { DatabaseSync } from "node:sqlite";
import { type ProfileRow, type ProfileStore, toRecord } from "../profiles.ts";

/** The SQLite implementation of ProfileStore. */
export function sqliteProfileStore(db: DatabaseSync): ProfileStore {
  const q = {
    list: db.prepare("SELECT * FROM connection_profiles ORDER BY id"),
    get: db.prepare("SELECT * FROM connection_profiles WHERE id = ?"),
    clearDefault: db.prepare("UPDATE connection_profiles SET is_default = 0 WHERE id != ?"),
    upsert: db.prepare(`INSERT INTO connection_profiles
      (id, url, is_default, is_forced, max_bulk_message_size, max_message_length, service_accounts, skip_queue, webirc_password)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT(id) DO UPDATE SET url = excluded.url, is_default = excluded.is_default,
        is_forced = excluded.is_forced, max_bulk_message_size = excluded.max_bulk_message_size,
        max_message_length = excluded.max_message_length, service_accounts = excluded.service_accounts,
        skip_queue = excluded.skip_queue, webirc_password = excluded.webirc_password`),
    remove: db.prepare("DELETE FROM connection_profiles WHERE id = ?"),
  };
  return {
    list: () => Promise.resolve((q.list.all() as unknown as ProfileRow[]).map(toRecord)),
    get(id) {
      const row = q.get.get(id) as ProfileRow | undefined;
      return Promise.resolve(row && toRecord(row));
    },
    save(p) {
      if (p.isDefault) q.clearDefault.run(p.id);
      q.upsert.run(
        p.id,
        p.url,
        p.isDefault ? 1 : 0,
        p.isForced ? 1 : 0,
        p.maxBulkMessageSize,
        p.maxMessageLength,
        JSON.stringify(p.serviceAccounts),
        p.skipQueue ? 1 : 0,
        p.webircPassword,
      );
      return Promise.resolve(toRecord(q.get.get(p.id) as unknown as ProfileRow));
    },
    remove: (id) => Promise.resolve(Number(q.remove.run(id).changes) > 0),
  };
}
