/** Users in PostgreSQL (store/users.ts has the interface and its rules). */
import { nowMicros } from "../../lib/time.ts";
import {
  NO_PASSWORD,
  type Registration,
  toRecord,
  type UserRow,
  type UserStore,
} from "../users.ts";
import { pgString, type Sql } from "./db.ts";

/** Serialises registrations, so that two first ones cannot both find an empty install. */
const REGISTER_LOCK = 0x7061726c_01;

/** Users in PostgreSQL; `bump` is called when another node changed a user. */
export interface PgUserStore extends UserStore {
  bump(): void;
}

/** The channel on which nodes say that users changed (caches keyed on `generation` reload). */
export const USERS_CHANGED = "parley_users_changed";

/** The PostgreSQL implementation of UserStore. */
export function pgUserStore(sql: Sql): PgUserStore {
  let generation = 0;
  /**
   * Runs a write with the "users changed" notification in its transaction: PostgreSQL delivers
   * it at commit, so no node reloads a user before the change is there to read.
   */
  const changing = async <T>(write: (tx: Sql) => Promise<T>): Promise<T> => {
    const out = await sql.begin(async (raw) => {
      const tx = raw as unknown as Sql;
      const result = await write(tx);
      await tx`SELECT pg_notify(${USERS_CHANGED}, '')`;
      return result;
    }) as T;
    generation++;
    return out;
  };
  const one = (rows: UserRow[]) => toRecord(rows[0]);
  const insert = (tx: Sql, email: string, hash: string, roles: string[]) =>
    tx<UserRow[]>`INSERT INTO users (email, password_hash, roles, registered)
      VALUES (${pgString(email)}, ${hash}, ${JSON.stringify(roles)}, ${nowMicros()})
      RETURNING *`;
  const hasPeople = async (tx: Sql) =>
    (await tx`SELECT EXISTS (SELECT 1 FROM users WHERE left(password_hash, 1) <> ${NO_PASSWORD})
      AS people`)[0].people as boolean;
  return {
    get generation() {
      return generation;
    },
    bump: () => void generation++,
    count: async () => (await sql`SELECT count(*)::int AS n FROM users`)[0].n,
    create: async (email, passwordHash, roles) =>
      one(await insert(sql, email, passwordHash, roles))!,
    register: (email, passwordHash, open) =>
      sql.begin(async (raw): Promise<Registration> => {
        const tx = raw as unknown as Sql;
        await tx`SELECT pg_advisory_xact_lock(${REGISTER_LOCK})`;
        const first = !(await hasPeople(tx));
        // Invite first: a closed install does not tell strangers which emails it knows.
        if (!first && !open) return { refused: "invite" };
        const [taken] = await tx`SELECT 1 AS x FROM users WHERE email = ${pgString(email)}`;
        if (taken) return { refused: "taken" };
        return { user: one(await insert(tx, email, passwordHash, first ? ["admin"] : []))! };
      }) as Promise<Registration>,
    hasPeople: () => hasPeople(sql),
    countPeople: async () =>
      (await sql`SELECT count(*)::int AS n FROM users
        WHERE left(password_hash, 1) <> ${NO_PASSWORD}`)[0].n,
    byEmail: async (email) =>
      one(await sql<UserRow[]>`SELECT * FROM users WHERE email = ${pgString(email)}`),
    byId: async (id) => one(await sql<UserRow[]>`SELECT * FROM users WHERE id = ${id}`),
    list: async (after, limit) =>
      (await sql<UserRow[]>`SELECT * FROM users WHERE email > ${pgString(after ?? "")}
        ORDER BY email LIMIT ${limit}`).map((r) => toRecord(r)!),
    withRole: async (role) =>
      (await sql<UserRow[]>`SELECT * FROM users WHERE roles::jsonb ? ${role} ORDER BY email`)
        .map((r) => toRecord(r)!),
    async update(id, patch) {
      const set: Record<string, string> = {};
      if (patch.passwordHash !== undefined) set.password_hash = patch.passwordHash;
      if (patch.roles !== undefined) set.roles = JSON.stringify(patch.roles);
      if (patch.highlightKeywords !== undefined) {
        set.highlight_keywords = pgString(JSON.stringify(patch.highlightKeywords));
      }
      if (!Object.keys(set).length) {
        return one(await sql<UserRow[]>`SELECT * FROM users WHERE id = ${id}`);
      }
      return one(
        await changing((tx) =>
          tx<UserRow[]>`UPDATE users SET ${tx(set)} WHERE id = ${id} RETURNING *`
        ),
      );
    },
    remove: (id) =>
      changing(async (tx) => (await tx`DELETE FROM users WHERE id = ${id}`).count > 0),
    clientSettings: async (id) =>
      (await sql<{ client_settings: string }[]>`SELECT client_settings FROM users
        WHERE id = ${id}`)[0]?.client_settings ?? "{}",
    async setClientSettings(id, json) {
      await sql`UPDATE users SET client_settings = ${pgString(json)} WHERE id = ${id}`;
    },
  };
}
