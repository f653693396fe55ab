/** Login sessions in PostgreSQL (store/sessions.ts has the interface). */
import { randomId } from "../../lib/crypto.ts";
import type { SessionStore } from "../sessions.ts";
import { pgString, type Sql } from "./db.ts";

/** The PostgreSQL implementation of SessionStore. */
export function pgSessionStore(sql: Sql): SessionStore {
  return {
    async create(idHash, userId, expires, passwordAt = 0) {
      const now = Date.now();
      await sql`INSERT INTO sessions
          (id_hash, user_id, created, expires, public_id, last_used, password_at)
        VALUES (${idHash}, ${userId}, ${now}, ${expires}, ${randomId(12)}, ${now}, ${passwordAt})`;
    },
    async get(idHash) {
      const [row] = await sql`SELECT user_id, expires, password_at FROM sessions
        WHERE id_hash = ${idHash}`;
      return row && {
        idHash,
        userId: row.user_id,
        expires: row.expires,
        passwordAt: row.password_at,
      };
    },
    async touch(idHash, expires) {
      await sql`UPDATE sessions SET expires = ${expires}, last_used = ${Date.now()}
        WHERE id_hash = ${idHash}`;
    },
    async remove(idHash) {
      await sql`DELETE FROM sessions WHERE id_hash = ${idHash}`;
    },
    async removeForUser(userId) {
      await sql`DELETE FROM sessions WHERE user_id = ${userId}`;
    },
    purge: async (now) => (await sql`DELETE FROM sessions WHERE expires < ${now}`).count,
    async listForUser(userId, now) {
      const rows = await sql`SELECT public_id, id_hash, created, last_used, expires, user_agent,
          address FROM sessions WHERE user_id = ${userId} AND expires > ${now}
        ORDER BY last_used DESC, created DESC`;
      return rows.map((r) => ({
        publicId: r.public_id,
        idHash: r.id_hash,
        created: r.created,
        lastUsed: r.last_used,
        expires: r.expires,
        userAgent: r.user_agent,
        address: r.address,
      }));
    },
    removePublic: async (userId, publicId) =>
      (await sql`DELETE FROM sessions WHERE user_id = ${userId} AND public_id = ${publicId}`)
        .count > 0,
    async noteClient(idHash, userAgent, address) {
      await sql`UPDATE sessions SET user_agent = ${pgString(userAgent.slice(0, 300))},
        address = ${pgString(address.slice(0, 100))}, last_used = ${Date.now()}
        WHERE id_hash = ${idHash}`;
    },
  };
}
