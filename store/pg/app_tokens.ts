/** App tokens in PostgreSQL (store/app_tokens.ts has the interface). */
import { type AppTokenRow, type AppTokenStore, toAppToken } from "../app_tokens.ts";
import { pgString, type Sql } from "./db.ts";

/** The PostgreSQL implementation of AppTokenStore. */
export function pgAppTokenStore(sql: Sql): AppTokenStore {
  return {
    async create(userId, name, hash) {
      const [row] = await sql`INSERT INTO app_tokens (user_id, name, token_hash, created, last_used)
        VALUES (${userId}, ${pgString(name)}, ${hash}, ${Date.now()}, 0)
        RETURNING id, user_id, name, created, last_used`;
      return toAppToken(row as unknown as AppTokenRow);
    },
    async list(userId) {
      const rows = await sql`SELECT id, user_id, name, created, last_used FROM app_tokens
        WHERE user_id = ${userId} ORDER BY id DESC`;
      return rows.map((r) => toAppToken(r as unknown as AppTokenRow));
    },
    async find(userId, hash) {
      const [row] = await sql`SELECT id FROM app_tokens
        WHERE user_id = ${userId} AND token_hash = ${hash}`;
      return row ? Number(row.id) : undefined;
    },
    async used(id, now) {
      await sql`UPDATE app_tokens SET last_used = ${now} WHERE id = ${id}`;
    },
    remove: async (userId, id) =>
      (await sql`DELETE FROM app_tokens WHERE user_id = ${userId} AND id = ${id}`).count > 0,
  };
}
