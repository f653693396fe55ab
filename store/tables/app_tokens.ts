/** App tokens, on either backend (store/app_tokens.ts has the interface). */
import { type AppTokenRecord, type AppTokenStore, MAX_APP_TOKENS } from "../app_tokens.ts";
import { rowsOfUser, type TableDb } from "./db.ts";

const COLUMNS = ["id", "user_id", "name", "created", "last_used"] as const;

/** The AppTokenStore over a backend's executor. */
export function appTokenStore(db: TableDb): AppTokenStore {
  const { q } = db;
  const toAppToken = (
    r: { id: number; user_id: number; name: string; created: number; last_used: number },
  ): AppTokenRecord => ({
    id: r.id,
    userId: r.user_id,
    name: r.name,
    created: r.created,
    lastUsed: r.last_used,
  });
  return {
    create: (userId, name, hash) =>
      db.transaction(async (tx) => {
        // The user's row lock orders concurrent makes of one user, so the count holds.
        await tx.lockUser(userId);
        if (await rowsOfUser(tx, "app_tokens", userId) >= MAX_APP_TOKENS) return undefined;
        return toAppToken(
          (await tx.first(
            q.insertInto("app_tokens").values({
              user_id: userId,
              name,
              token_hash: hash,
              created: Date.now(),
              last_used: 0,
            }).returning(COLUMNS),
          ))!,
        );
      }),
    list: async (userId) =>
      (await db.all(
        q.selectFrom("app_tokens").select(COLUMNS).where("user_id", "=", userId)
          .orderBy("id", "desc"),
      )).map(toAppToken),
    find: async (userId, hash) =>
      (await db.first(
        q.selectFrom("app_tokens").select("id").where("user_id", "=", userId)
          .where("token_hash", "=", hash),
      ))?.id,
    async used(id, now) {
      await db.run(q.updateTable("app_tokens").set({ last_used: now }).where("id", "=", id));
    },
    remove: async (userId, id) =>
      await db.run(
        q.deleteFrom("app_tokens").where("user_id", "=", userId).where("id", "=", id),
      ) > 0,
  };
}
