/** Login sessions, on either backend (store/sessions.ts has the interface). */
import type { Expression } from "kysely";
import { randomId } from "../../lib/crypto.ts";
import { MAX_SESSIONS_PER_USER, type SessionStore } from "../sessions.ts";
import { prepared, type TableDb } from "./db.ts";

/** The SessionStore over a backend's executor. */
export function sessionStore(db: TableDb): SessionStore {
  const { q } = db;
  // Every request reads its session, and touches it now and then.
  const get = prepared((idHash: Expression<string>) =>
    q.selectFrom("sessions").select(["user_id", "expires", "password_at"])
      .where("id_hash", "=", idHash)
  );
  const touch = prepared(
    (idHash: Expression<string>, expires: Expression<number>, now: Expression<number>) =>
      q.updateTable("sessions").set({ expires, last_used: now }).where("id_hash", "=", idHash),
  );
  return {
    async create(idHash, userId, expires, passwordAt = 0) {
      const now = Date.now();
      await db.run(
        q.insertInto("sessions").values({
          id_hash: idHash,
          user_id: userId,
          created: now,
          expires,
          public_id: randomId(12),
          last_used: now,
          password_at: passwordAt,
        }),
      );
      const kept = q.selectFrom("sessions").select("id_hash").where("user_id", "=", userId)
        .orderBy("last_used", "desc").orderBy("created", "desc").limit(MAX_SESSIONS_PER_USER);
      await db.run(
        q.deleteFrom("sessions").where("user_id", "=", userId).where("id_hash", "not in", kept),
      );
    },
    async get(idHash) {
      const row = await db.first(get(idHash));
      return row &&
        { idHash, userId: row.user_id, expires: row.expires, passwordAt: row.password_at };
    },
    async touch(idHash, expires) {
      await db.run(touch(idHash, expires, Date.now()));
    },
    async remove(idHash) {
      await db.run(q.deleteFrom("sessions").where("id_hash", "=", idHash));
    },
    async removeForUser(userId) {
      await db.run(q.deleteFrom("sessions").where("user_id", "=", userId));
    },
    purge: (now) => db.run(q.deleteFrom("sessions").where("expires", "<", now)),
    async listForUser(userId, now) {
      const rows = await db.all(
        q.selectFrom("sessions")
          .select([
            "public_id",
            "id_hash",
            "created",
            "last_used",
            "expires",
            "user_agent",
            "address",
          ])
          .where("user_id", "=", userId).where("expires", ">", now)
          .orderBy("last_used", "desc").orderBy("created", "desc"),
      );
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
      await db.run(
        q.deleteFrom("sessions").where("user_id", "=", userId).where("public_id", "=", publicId),
      ) > 0,
    async noteClient(idHash, userAgent, address) {
      await db.run(
        q.updateTable("sessions").set({
          user_agent: userAgent.slice(0, 300),
          address: address.slice(0, 100),
          last_used: Date.now(),
        }).where("id_hash", "=", idHash),
      );
    },
  };
}
