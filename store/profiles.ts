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
type ProfileInput = Omit<ProfileRecord, "skipQueue"> & { skipQueue?: boolean };

/** Storage of connection profiles. */
export interface ProfileStore {
  list(): Promise<ProfileRecord[]>;
  get(id: string): Promise<ProfileRecord | undefined>;
  /** Inserts or replaces; a profile saved as default clears the flag on the others. */
  save(profile: ProfileInput): Promise<ProfileRecord>;
  remove(id: string): Promise<boolean>;
}
