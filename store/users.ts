/** Users: accounts, their password hashes, roles and highlight keywords. */
import type { DatabaseSync } from "node:sqlite";
import { nowMicros } from "../lib/time.ts";
import { transaction } from "./db.ts";

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
}

/** Changes to a user; absent fields stay as they are. */
export interface UserPatch {
  passwordHash?: string;
  roles?: string[];
  highlightKeywords?: string[];
}

/** Storage of users. */
export interface UserStore {
  /** Bumped on every update or removal, so that callers caching a user know to read again. */
  readonly generation: number;
  count(): Promise<number>;
  create(email: string, passwordHash: string, roles: string[]): Promise<UserRecord>;
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
}

/** A `users` row, in SQLite and PostgreSQL alike. */
export interface UserRow {
  id: number;
  email: string;
  password_hash: string;
  roles: string;
  highlight_keywords: string;
  registered: number;
}

/** A stored row as a UserRecord. */
export function toRecord(row: UserRow | undefined): UserRecord | undefined {
  if (!row) return undefined;
  return {
    id: row.id,
    email: row.email,
    passwordHash: row.password_hash,
    roles: JSON.parse(row.roles),
    highlightKeywords: JSON.parse(row.highlight_keywords),
    registered: row.registered,
  };
}

/** The SQLite implementation of UserStore. */
export function sqliteUserStore(db: DatabaseSync): UserStore {
  const q = {
    count: db.prepare("SELECT count(*) AS n FROM users"),
    people: db.prepare(
      "SELECT EXISTS (SELECT 1 FROM users WHERE substr(password_hash, 1, 1) <> ?) AS people",
    ),
    countPeople: db.prepare(
      "SELECT count(*) AS n FROM users WHERE substr(password_hash, 1, 1) <> ?",
    ),
    insert: db.prepare(
      "INSERT INTO users (email, password_hash, roles, registered) VALUES (?, ?, ?, ?) RETURNING *",
    ),
    byEmail: db.prepare("SELECT * FROM users WHERE email = ?"),
    byId: db.prepare("SELECT * FROM users WHERE id = ?"),
    list: db.prepare("SELECT * FROM users WHERE email > ? ORDER BY email LIMIT ?"),
    all: db.prepare("SELECT * FROM users ORDER BY email"),
    remove: db.prepare("DELETE FROM users WHERE id = ?"),
  };
  const hasPeople = () => (q.people.get(NO_PASSWORD) as { people: number }).people === 1;
  let generation = 0;
  return {
    get generation() {
      return generation;
    },
    count: () => Promise.resolve((q.count.get() as { n: number }).n),
    create: (email, passwordHash, roles) =>
      Promise.resolve(
        toRecord(
          q.insert.get(
            email,
            passwordHash,
            JSON.stringify(roles),
            nowMicros(),
          ) as unknown as UserRow,
        )!,
      ),
    hasPeople: () => Promise.resolve(hasPeople()),
    countPeople: () => Promise.resolve((q.countPeople.get(NO_PASSWORD) as { n: number }).n),
    register: (email, passwordHash, open) =>
      Promise.resolve(transaction(db, (): Registration => {
        const first = !hasPeople();
        // Invite first: a closed install does not tell strangers which emails it knows.
        if (!first && !open) return { refused: "invite" };
        if (q.byEmail.get(email)) return { refused: "taken" };
        const row = q.insert.get(
          email,
          passwordHash,
          JSON.stringify(first ? ["admin"] : []),
          nowMicros(),
        );
        return { user: toRecord(row as unknown as UserRow)! };
      })),
    byEmail: (email) => Promise.resolve(toRecord(q.byEmail.get(email) as UserRow | undefined)),
    byId: (id) => Promise.resolve(toRecord(q.byId.get(id) as UserRow | undefined)),
    list: (after, limit) =>
      Promise.resolve(
        (q.list.all(after ?? "", limit) as unknown as UserRow[]).map((r) => toRecord(r)!),
      ),
    withRole: (role) =>
      Promise.resolve(
        (q.all.all() as unknown as UserRow[]).map((r) => toRecord(r)!).filter((u) =>
          u.roles.includes(role)
        ),
      ),
    update(id, patch) {
      generation++;
      const sets: string[] = [];
      const values: string[] = [];
      if (patch.passwordHash !== undefined) {
        sets.push("password_hash = ?"), values.push(patch.passwordHash);
      }
      if (patch.roles !== undefined) {
        sets.push("roles = ?"), values.push(JSON.stringify(patch.roles));
      }
      if (patch.highlightKeywords !== undefined) {
        sets.push("highlight_keywords = ?"), values.push(JSON.stringify(patch.highlightKeywords));
      }
      if (sets.length) {
        db.prepare(`UPDATE users SET ${sets.join(", ")} WHERE id = ?`).run(...values, id);
      }
      return Promise.resolve(toRecord(q.byId.get(id) as UserRow | undefined));
    },
    remove: (id) => {
      generation++;
      return Promise.resolve(Number(q.remove.run(id).changes) > 0);
    },
  };
}
