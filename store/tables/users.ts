/** Users, on either backend (store/users.ts has the interface and its rules). */
import type { Expression, Selectable } from "kysely";
import { nowMicros } from "../../lib/time.ts";
import { NO_PASSWORD, type Registration, type UserRecord, type UserStore } from "../users.ts";
import { prepared, type Queries, type TableDb } from "./db.ts";
import type { UsersTable } from "./schema.ts";

/** Serialises registrations, so that two first ones cannot both find an empty install. */
const REGISTER_LOCK = 0x7061726c_01;

/** Users; `bump` is called when another node changed a user. */
export interface SharedUserStore extends UserStore {
  bump(): void;
}

/** A stored row as a UserRecord. */
function toRecord(row: Selectable<UsersTable> | undefined): UserRecord | undefined {
  if (!row) return undefined;
  return {
    id: row.id,
    email: row.email,
    passwordHash: row.password_hash,
    roles: JSON.parse(row.roles),
    highlightKeywords: JSON.parse(row.highlight_keywords),
    registered: row.registered,
    defaultConnectionDue: row.default_connection_due === 1,
    suspended: Number(row.suspended) > 0,
  };
}

/** The UserStore over a backend's executor. */
export function userStore(db: TableDb): SharedUserStore {
  let generation = 0;
  const { q } = db;
  // Every request reads its user.
  const selectById = prepared((id: Expression<number>) =>
    q.selectFrom("users").selectAll().where("id", "=", id)
  );
  const byId = async (id: number) => toRecord(await db.first(selectById(id)));
  const insert = async (on: Queries, email: string, hash: string, roles: string[], due = false) =>
    toRecord(
      await on.first(
        q.insertInto("users").values({
          email,
          password_hash: hash,
          roles: JSON.stringify(roles),
          registered: nowMicros(),
          default_connection_due: due ? 1 : 0,
        }).returningAll(),
      ),
    )!;
  // An account whose hash starts with NO_PASSWORD is no person (the bot).
  const people = q.selectFrom("users").where(
    (e) => e(e.fn("substr", ["password_hash", e.lit(1), e.lit(1)]), "<>", NO_PASSWORD),
  );
  const hasPeople = async (on: Queries) =>
    (await on.first(people.select("id").limit(1))) !== undefined;
  return {
    get generation() {
      return generation;
    },
    bump: () => void generation++,
    count: async () =>
      Number(
        (await db.first(q.selectFrom("users").select((e) => e.fn.countAll<number>().as("n"))))!
          .n,
      ),
    create: (email, passwordHash, roles, due) => insert(db, email, passwordHash, roles, due),
    // A copy of the record that still says due only costs a take that returns false.
    takeDefaultConnectionDue: async (id) =>
      (await db.run(
        q.updateTable("users").set({ default_connection_due: 0 })
          .where("id", "=", id).where("default_connection_due", "=", 1),
      )) > 0,
    register: (email, passwordHash, open) =>
      db.transaction(async (tx): Promise<Registration> => {
        await tx.exclusive(REGISTER_LOCK);
        const first = !(await hasPeople(tx));
        // Invite first: a closed install does not tell strangers which emails it knows.
        if (!first && !open) return { refused: "invite" };
        if (await tx.first(q.selectFrom("users").select("id").where("email", "=", email))) {
          return { refused: "taken" };
        }
        return { user: await insert(tx, email, passwordHash, first ? ["admin"] : []) };
      }),
    hasPeople: () => hasPeople(db),
    countPeople: async () =>
      Number((await db.first(people.select((e) => e.fn.countAll<number>().as("n"))))!.n),
    byEmail: async (email) =>
      toRecord(await db.first(q.selectFrom("users").selectAll().where("email", "=", email))),
    byId,
    list: async (after, limit) =>
      (await db.all(
        q.selectFrom("users").selectAll().where("email", ">", after ?? "").orderBy("email")
          .limit(limit),
      )).map((r) => toRecord(r)!),
    // Few users hold a role, and few ask (the admins to tell): every row, filtered here.
    withRole: async (role) =>
      (await db.all(q.selectFrom("users").selectAll().orderBy("email")))
        .map((r) => toRecord(r)!).filter((u) => u.roles.includes(role)),
    async update(id, patch) {
      const set = {
        password_hash: patch.passwordHash,
        roles: patch.roles && JSON.stringify(patch.roles),
        highlight_keywords: patch.highlightKeywords && JSON.stringify(patch.highlightKeywords),
        suspended: patch.suspended === undefined ? undefined : patch.suspended ? Date.now() : 0,
      };
      if (Object.values(set).every((v) => v === undefined)) return byId(id);
      const row = await db.transaction(async (tx) => {
        const row = await tx.first(
          q.updateTable("users").set(set).where("id", "=", id).returningAll(),
        );
        await tx.changed("users");
        return row;
      });
      generation++;
      return toRecord(row);
    },
    async remove(id) {
      const gone = await db.transaction(async (tx) => {
        const n = await tx.run(q.deleteFrom("users").where("id", "=", id));
        await tx.changed("users");
        return n > 0;
      });
      generation++;
      return gone;
    },
    clientSettings: async (id) =>
      (await db.first(q.selectFrom("users").select("client_settings").where("id", "=", id)))
        ?.client_settings ?? "{}",
    changeClientSettings: (id, change) =>
      db.transaction(async (tx) => {
        // Two devices saving at once each change the other's result, not the same old one.
        await tx.lockUser(id);
        const row = await tx.first(
          q.selectFrom("users").select("client_settings").where("id", "=", id),
        );
        const json = change(row?.client_settings ?? "{}");
        await tx.run(q.updateTable("users").set({ client_settings: json }).where("id", "=", id));
        return json;
      }),
  };
}
