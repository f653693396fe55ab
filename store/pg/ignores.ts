/** Ignore masks in PostgreSQL (store/ignores.ts has the interface). */
import { type IgnoreStore, MAX_IGNORES } from "../ignores.ts";
import type { Sql } from "./db.ts";

/** The channel on which nodes say that an ignore list changed (their caches reload). */
export const IGNORES_CHANGED = "parley_ignores_changed";

/** Ignore masks in PostgreSQL; `bump` is called when another node changed a list. */
export interface PgIgnoreStore extends IgnoreStore {
  bump(): void;
}

/** The PostgreSQL implementation of IgnoreStore. */
export function pgIgnoreStore(sql: Sql): PgIgnoreStore {
  let generation = 0;
  return {
    get generation() {
      return generation;
    },
    bump: () => void generation++,
    async list(userId) {
      const rows = await sql`SELECT mask FROM ignores WHERE user_id = ${userId} ORDER BY seq`;
      return rows.map((r) => String(r.mask));
    },
    add: (userId, mask) =>
      sql.begin(async (raw) => {
        const tx = raw as unknown as Sql;
        // The user's row lock orders concurrent adds of one user, so the count holds.
        await tx`SELECT id FROM users WHERE id = ${userId} FOR NO KEY UPDATE`;
        const [has] = await tx`SELECT 1 FROM ignores WHERE user_id = ${userId} AND mask = ${mask}`;
        if (has) return "exists";
        const r = await tx`INSERT INTO ignores (user_id, mask, seq, created)
          SELECT ${userId}, ${mask}, coalesce(max(seq), 0) + 1, ${Date.now()}
          FROM ignores WHERE user_id = ${userId} HAVING count(*) < ${MAX_IGNORES}`;
        if (r.count === 0) return "full";
        await tx`SELECT pg_notify(${IGNORES_CHANGED}, '')`;
        generation++;
        return "added";
      }) as Promise<"added" | "exists" | "full">,
    async remove(userId, mask) {
      const gone = await sql.begin(async (raw) => {
        const tx = raw as unknown as Sql;
        const r = await tx`DELETE FROM ignores WHERE user_id = ${userId} AND mask = ${mask}`;
        if (r.count > 0) await tx`SELECT pg_notify(${IGNORES_CHANGED}, '')`;
        return r.count > 0;
      }) as boolean;
      if (gone) generation++;
      return gone;
    },
  };
}
