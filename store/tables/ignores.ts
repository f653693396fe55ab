/** Ignore masks, on either backend (store/ignores.ts has the interface). */
import { type IgnoreStore, MAX_IGNORES } from "../ignores.ts";
import type { TableDb } from "./db.ts";

/** Ignore masks; `bump` is called when another node changed a list. */
export interface SharedIgnoreStore extends IgnoreStore {
  bump(): void;
}

/** The IgnoreStore over a backend's executor. */
export function ignoreStore(db: TableDb): SharedIgnoreStore {
  const { q } = db;
  let generation = 0;
  return {
    get generation() {
      return generation;
    },
    bump: () => void generation++,
    list: async (userId) =>
      (await db.all(
        q.selectFrom("ignores").select("mask").where("user_id", "=", userId).orderBy("seq"),
      )).map((r) => r.mask),
    async add(userId, mask) {
      const outcome = await db.transaction(async (tx) => {
        // The user's row lock orders concurrent adds of one user, so the count holds.
        await tx.lockUser(userId);
        const has = await tx.first(
          q.selectFrom("ignores").select("seq").where("user_id", "=", userId)
            .where("mask", "=", mask),
        );
        if (has) return "exists";
        const mine = q.selectFrom("ignores").where("user_id", "=", userId);
        const n = await tx.run(
          q.insertInto("ignores").columns(["user_id", "mask", "seq", "created"]).expression(
            mine.select((e) => [
              e.val(userId).as("user_id"),
              e.val(mask).as("mask"),
              e(e.fn.coalesce(e.fn.max("seq"), e.lit(0)), "+", 1).as("seq"),
              e.val(Date.now()).as("created"),
            ]).having((e) => e.fn.countAll(), "<", MAX_IGNORES),
          ),
        );
        if (n === 0) return "full";
        await tx.changed("ignores");
        return "added";
      });
      if (outcome === "added") generation++;
      return outcome;
    },
    async remove(userId, mask) {
      const gone = await db.transaction(async (tx) => {
        const n = await tx.run(
          q.deleteFrom("ignores").where("user_id", "=", userId).where("mask", "=", mask),
        );
        if (n > 0) await tx.changed("ignores");
        return n > 0;
      });
      if (gone) generation++;
      return gone;
    },
  };
}
