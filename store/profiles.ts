/** Connection profiles: per-host defaults and limits set by an admin. */
import type { DatabaseSync } from "node:sqlite";

/** A connection profile as stored. */
export interface ProfileRecord {
  id: string;
  url: string;
  isDefault: boolean;
  isForced: boolean;
  maxBulkMessageSize: number;
  maxMessageLength: number;
  serviceAccounts: string[];
  /** Connect without waiting in the per-host connect queue. */
  skipQueue: boolean;
  webircPassword: string;
}

/** What save() takes: a profile, skip_queue optional (off). */
export type ProfileInput = Omit<ProfileRecord, "skipQueue"> & { skipQueue?: boolean };

/** Storage of connection profiles. */
export interface ProfileStore {
  list(): Promise<ProfileRecord[]>;
  get(id: string): Promise<ProfileRecord | undefined>;
  /** Inserts or replaces; a profile saved as default clears the flag on the others. */
  save(profile: ProfileInput): Promise<ProfileRecord>;
  remove(id: string): Promise<boolean>;
}

/** A `connection_profiles` row (flags are 0/1 in SQLite, booleans in PostgreSQL). */
export interface ProfileRow {
  id: string;
  url: string;
  is_default: number | boolean;
  is_forced: number | boolean;
  max_bulk_message_size: number;
  max_message_length: number;
  service_accounts: string;
  skip_queue: number | boolean;
  webirc_password: string;
}

/** A stored row as a ProfileRecord. */
export function toRecord(r: ProfileRow): ProfileRecord {
  return {
    id: r.id,
    url: r.url,
    isDefault: Boolean(r.is_default),
    isForced: Boolean(r.is_forced),
    maxBulkMessageSize: r.max_bulk_message_size,
    maxMessageLength: r.max_message_length,
    serviceAccounts: JSON.parse(r.service_accounts),
    skipQueue: Boolean(r.skip_queue),
    webircPassword: r.webirc_password,
  };
}

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
