/** Registered certificate fingerprints in PostgreSQL (store/certfp.ts has the interface). */
import { type CertfpRow, type CertfpStore, toCertfp } from "../certfp.ts";
import type { Sql } from "./db.ts";

/** The PostgreSQL implementation of CertfpStore. */
export function pgCertfpStore(sql: Sql): CertfpStore {
  return {
    add: async (userId, fp) =>
      (await sql`INSERT INTO certfps (fingerprint, user_id, created)
        VALUES (${fp}, ${userId}, ${Date.now()}) ON CONFLICT DO NOTHING`).count > 0,
    async list(userId) {
      const rows = await sql`SELECT user_id, fingerprint, created FROM certfps
        WHERE user_id = ${userId} ORDER BY created, fingerprint`;
      return rows.map((r) => toCertfp(r as unknown as CertfpRow));
    },
    remove: async (userId, fp) =>
      (await sql`DELETE FROM certfps WHERE user_id = ${userId} AND fingerprint = ${fp}`).count > 0,
    async owner(fp) {
      const [row] = await sql`SELECT user_id FROM certfps WHERE fingerprint = ${fp}`;
      return row ? Number(row.user_id) : undefined;
    },
  };
}
