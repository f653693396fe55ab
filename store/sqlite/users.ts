/** Users in SQLite (store/users.ts has the interface and its records). */
import type { DatabaseSync } from "node:sqlite";
import { nowMicros } from "../../lib/time.ts";
import { transaction } from "./db.ts";
import {
  NO_PASSWORD,
  type Registration,
  toRecord,
  type UserRow,
  type UserStore,
} from "../users.ts";

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
    clientSettings: db.prepare("SELECT client_settings FROM users WHERE id = ?"),
    setClientSettings: db.prepare("UPDATE users SET client_settings = ? WHERE id = ?"),
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
    clientSettings: (id) =>
      Promise.resolve(
        (q.clientSettings.get(id) as { client_settings: string } | undefined)?.client_settings ??
          "{}",
      ),
    setClientSettings: (id, json) => {
      q.setClientSettings.run(json, id);
      return Promise.resolve();
    },
  };
}
