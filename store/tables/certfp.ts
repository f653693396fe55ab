/** Registered certificate fingerprints, on either backend (store/certfp.ts has the interface). */
import { type CertfpStore, MAX_CERTFPS } from "../certfp.ts";
import { rowsOfUser, type TableDb } from "./db.ts";

/** The CertfpStore over a backend's executor. */
export function certfpStore(db: TableDb): CertfpStore {
  const { q } = db;
  return {
    add: (userId, fp) =>
      db.transaction(async (tx) => {
        // The user's row lock orders concurrent adds of one user, so the count holds.
        await tx.lockUser(userId);
        const taken = await tx.first(
          q.selectFrom("certfps").select("user_id").where("fingerprint", "=", fp),
        );
        if (taken) return "exists";
        if (await rowsOfUser(tx, "certfps", userId) >= MAX_CERTFPS) return "full";
        // Another user's add of the same fingerprint, made at once, may still come first.
        const added = await tx.run(
          q.insertInto("certfps").values({ fingerprint: fp, user_id: userId, created: Date.now() })
            .onConflict((c) => c.doNothing()),
        );
        return added > 0 ? "added" : "exists";
      }),
    list: async (userId) =>
      (await db.all(
        q.selectFrom("certfps").select(["user_id", "fingerprint", "created"])
          .where("user_id", "=", userId).orderBy("created").orderBy("fingerprint"),
      )).map((r) => ({ userId: r.user_id, fingerprint: r.fingerprint, created: r.created })),
    remove: async (userId, fp) =>
      await db.run(
        q.deleteFrom("certfps").where("user_id", "=", userId).where("fingerprint", "=", fp),
      ) > 0,
    owner: async (fp) =>
      (await db.first(q.selectFrom("certfps").select("user_id").where("fingerprint", "=", fp)))
        ?.user_id,
  };
}
