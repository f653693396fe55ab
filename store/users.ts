/** Users: accounts, their password hashes, roles and highlight keywords. */

/**
 * A password hash starting with this is no hash: nobody can log in to the account (the bot's).
 * Such accounts are not people, so they do not make the next registration a second one.
 */
export const NO_PASSWORD = "!";

/** The outcome of a registration without an invite. */
export type Registration =
  | { user: UserRecord }
  /** `taken`: the email is registered; `invite`: people exist and registration is not open. */
  | { refused: "taken" | "invite" };

/** A user as stored. */
export interface UserRecord {
  id: number;
  email: string;
  passwordHash: string;
  roles: string[];
  highlightKeywords: string[];
  /** Registration time in microseconds. */
  registered: number;
  /**
   * Whether the account is owed the default connection: made where no connection could be added
   * (from the shell), it gets one at its first login.
   */
  defaultConnectionDue: boolean;
  /** Suspended by an admin: nobody logs in to the account and its IRC connections do not run. */
  suspended: boolean;
}

/** Changes to a user; absent fields stay as they are. */
interface UserPatch {
  passwordHash?: string;
  roles?: string[];
  highlightKeywords?: string[];
  suspended?: boolean;
}

/** Storage of users. */
export interface UserStore {
  /** Bumped on every update or removal, so that callers caching a user know to read again. */
  readonly generation: number;
  count(): Promise<number>;
  /** `defaultConnectionDue`: the account's first login adds the default connection. */
  create(
    email: string,
    passwordHash: string,
    roles: string[],
    defaultConnectionDue?: boolean,
  ): Promise<UserRecord>;
  /**
   * Takes the account's owed default connection: true for the one caller that clears the mark (two
   * logins at once, on one node or two, add it once).
   */
  takeDefaultConnectionDue(id: number): Promise<boolean>;
  /**
   * Registers a person without an invite. In one transaction, so that concurrent first
   * registrations cannot all see an empty install: the first person (no account with a password
   * exists yet) becomes admin; later people register, with no role, only when `open`.
   */
  register(email: string, passwordHash: string, open: boolean): Promise<Registration>;
  /** Whether any account with a password exists (a registration would not be the first). */
  hasPeople(): Promise<boolean>;
  /** How many accounts with a password (people, not the bot) exist. */
  countPeople(): Promise<number>;
  byEmail(email: string): Promise<UserRecord | undefined>;
  byId(id: number): Promise<UserRecord | undefined>;
  /** Users ordered by email, those after `after`. */
  list(after: string | undefined, limit: number): Promise<UserRecord[]>;
  /** Users holding a role. */
  withRole(role: string): Promise<UserRecord[]>;
  update(id: number, patch: UserPatch): Promise<UserRecord | undefined>;
  remove(id: number): Promise<boolean>;
  /** The web client's settings, as the JSON object text last saved ("{}" before any). */
  clientSettings(id: number): Promise<string>;
  /**
   * Changes the web client's settings: `change` gets the text last saved and returns the text to
   * keep (a JSON object, validated by the caller), while no other change of this user's settings
   * runs; returns what was kept.
   */
  changeClientSettings(id: number, change: (stored: string) => string): Promise<string>;
}
