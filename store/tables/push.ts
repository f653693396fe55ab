/** Web Push subscriptions and choices, on either backend (store/push.ts has the interface). */
import type { IrcPushSubscriptionRecord, PushStore, PushSubscriptionRecord } from "../push.ts";
import type { TableDb, Transaction } from "./db.ts";
import { flag } from "./schema.ts";

type Table = "push_subscriptions" | "irc_push_subscriptions";

/** The PushStore over a backend's executor. */
export function pushStore(db: TableDb): PushStore {
  const { q } = db;
  /**
   * Whether the user holds fewer than `max` subscriptions of both kinds besides `endpoint` (the
   * one being saved again). The user's row lock orders concurrent subscribes of one user: each
   * counts only after the one before it committed.
   */
  const room = async (tx: Transaction, userId: number, endpoint: string, max: number) => {
    await tx.lockUser(userId);
    let n = 0;
    for (const table of ["push_subscriptions", "irc_push_subscriptions"] as const) {
      const row = await tx.first(
        q.selectFrom(table).select((e) => e.fn.countAll<number>().as("n"))
          .where("user_id", "=", userId).where("endpoint", "<>", endpoint),
      );
      n += Number(row?.n ?? 0);
    }
    return n < max;
  };
  const saveWeb = (on: Transaction | TableDb, s: PushSubscriptionRecord) => {
    const values = {
      user_id: s.userId,
      session_hash: s.sessionHash,
      p256dh: s.p256dh,
      auth: s.auth,
    };
    return on.run(
      q.insertInto("push_subscriptions")
        .values({ endpoint: s.endpoint, ...values, created: Date.now() })
        .onConflict((c) => c.column("endpoint").doUpdateSet(values)),
    );
  };
  const saveIrc = (on: Transaction, s: IrcPushSubscriptionRecord) => {
    const values = {
      user_id: s.userId,
      connection: s.connection,
      client: s.client,
      credential: s.credential,
      p256dh: s.p256dh,
      auth: s.auth,
    };
    return on.run(
      q.insertInto("irc_push_subscriptions")
        .values({ endpoint: s.endpoint, ...values, created: Date.now() })
        .onConflict((c) => c.column("endpoint").doUpdateSet(values)),
    );
  };
  const removeFrom = async (table: Table, endpoint: string, userId?: number) => {
    let query = q.deleteFrom(table).where("endpoint", "=", endpoint);
    if (userId !== undefined) query = query.where("user_id", "=", userId);
    return await db.run(query) > 0;
  };
  return {
    async save(s) {
      await saveWeb(db, s);
    },
    saveWithin: (s, max) =>
      db.transaction(async (tx) =>
        await room(tx, s.userId, s.endpoint, max) && await saveWeb(tx, s) > 0
      ),
    saveIrcWithin: (s, max) =>
      db.transaction(async (tx) =>
        await room(tx, s.userId, s.endpoint, max) && await saveIrc(tx, s) > 0
      ),
    async ircForUser(userId) {
      const rows = await db.all(
        q.selectFrom("irc_push_subscriptions")
          .select(["endpoint", "user_id", "connection", "client", "credential", "p256dh", "auth"])
          .where("user_id", "=", userId).orderBy("created"),
      );
      return rows.map((r) => ({
        endpoint: r.endpoint,
        userId: r.user_id,
        connection: r.connection,
        client: r.client,
        credential: r.credential,
        p256dh: r.p256dh,
        auth: r.auth,
      }));
    },
    removeIrc: (endpoint, userId) => removeFrom("irc_push_subscriptions", endpoint, userId),
    async forUser(userId) {
      const rows = await db.all(
        q.selectFrom("push_subscriptions")
          .select(["endpoint", "user_id", "session_hash", "p256dh", "auth"])
          .where("user_id", "=", userId).orderBy("created"),
      );
      return rows.map((r) => ({
        endpoint: r.endpoint,
        userId: r.user_id,
        sessionHash: r.session_hash,
        p256dh: r.p256dh,
        auth: r.auth,
      }));
    },
    countForUser: async (userId) =>
      Number(
        (await db.first(
          q.selectFrom("push_subscriptions").select((e) => e.fn.countAll<number>().as("n"))
            .where("user_id", "=", userId),
        ))?.n ?? 0,
      ),
    remove: (endpoint, userId) => removeFrom("push_subscriptions", endpoint, userId),
    async autoAway(userId) {
      const row = await db.first(
        q.selectFrom("push_prefs").select("auto_away").where("user_id", "=", userId),
      );
      return row !== undefined && flag(row.auto_away);
    },
    async setAutoAway(userId, on) {
      await db.run(
        q.insertInto("push_prefs").values({ user_id: userId, auto_away: on })
          .onConflict((c) => c.column("user_id").doUpdateSet({ auto_away: on })),
      );
    },
    autoAwayUsers: async () =>
      (await db.all(q.selectFrom("push_prefs").select("user_id").where("auto_away", "=", true)))
        .map((r) => r.user_id),
  };
}
