/** Connection profiles: per-host defaults and limits set by an admin. */

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
