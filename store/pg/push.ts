/** Push subscriptions and preferences in PostgreSQL (store/push.ts has the interface). */
import type { PushStore } from "../push.ts";
import type { Sql } from "./db.ts";

/** The PostgreSQL implementation of PushStore. */
export function pgPushStore(sql: Sql): PushStore {
  return {
    async save(s) {
      await sql`INSERT INTO push_subscriptions
        (endpoint, user_id, session_hash, p256dh, auth, created)
        VALUES (${s.endpoint}, ${s.userId}, ${s.sessionHash}, ${s.p256dh}, ${s.auth}, ${Date.now()})
        ON CONFLICT (endpoint) DO UPDATE SET user_id = excluded.user_id,
          session_hash = excluded.session_hash, p256dh = excluded.p256dh, auth = excluded.auth`;
    },
    saveWithin: (s, max) =>
      sql.begin(async (raw) => {
        const tx = raw as unknown as Sql;
        // The user's row lock orders concurrent subscribes of one user: each counts only after
        // the one before it committed. NO KEY UPDATE leaves rows that refer to the user free.
        await tx`SELECT id FROM users WHERE id = ${s.userId} FOR NO KEY UPDATE`;
        const r = await tx`INSERT INTO push_subscriptions
          (endpoint, user_id, session_hash, p256dh, auth, created)
          SELECT ${s.endpoint}, ${s.userId}, ${s.sessionHash}, ${s.p256dh}, ${s.auth}, ${Date.now()}
          WHERE (SELECT count(*) FROM push_subscriptions
              WHERE user_id = ${s.userId} AND endpoint <> ${s.endpoint}) +
            (SELECT count(*) FROM irc_push_subscriptions
              WHERE user_id = ${s.userId} AND endpoint <> ${s.endpoint}) < ${max}
          ON CONFLICT (endpoint) DO UPDATE SET user_id = excluded.user_id,
            session_hash = excluded.session_hash, p256dh = excluded.p256dh, auth = excluded.auth`;
        return r.count > 0;
      }) as Promise<boolean>,
    saveIrcWithin: (s, max) =>
      sql.begin(async (raw) => {
        const tx = raw as unknown as Sql;
        // As saveWithin: the user's row lock orders one user's registrations.
        await tx`SELECT id FROM users WHERE id = ${s.userId} FOR NO KEY UPDATE`;
        const r = await tx`INSERT INTO irc_push_subscriptions
          (endpoint, user_id, connection, client, credential, p256dh, auth, created)
          SELECT ${s.endpoint}, ${s.userId}, ${s.connection}, ${s.client}, ${s.credential},
            ${s.p256dh}, ${s.auth}, ${Date.now()}
          WHERE (SELECT count(*) FROM push_subscriptions
              WHERE user_id = ${s.userId} AND endpoint <> ${s.endpoint}) +
            (SELECT count(*) FROM irc_push_subscriptions
              WHERE user_id = ${s.userId} AND endpoint <> ${s.endpoint}) < ${max}
          ON CONFLICT (endpoint) DO UPDATE SET user_id = excluded.user_id,
            connection = excluded.connection, client = excluded.client,
            credential = excluded.credential, p256dh = excluded.p256dh, auth = excluded.auth`;
        return r.count > 0;
      }) as Promise<boolean>,
    async ircForUser(userId) {
      const rows = await sql`SELECT endpoint, user_id, connection, client, credential, p256dh, auth
        FROM irc_push_subscriptions WHERE user_id = ${userId} ORDER BY created`;
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
    async removeIrc(endpoint, userId) {
      const r = userId === undefined
        ? await sql`DELETE FROM irc_push_subscriptions WHERE endpoint = ${endpoint}`
        : await sql`DELETE FROM irc_push_subscriptions
          WHERE endpoint = ${endpoint} AND user_id = ${userId}`;
      return r.count > 0;
    },
    async forUser(userId) {
      const rows = await sql`SELECT endpoint, user_id, session_hash, p256dh, auth
        FROM push_subscriptions WHERE user_id = ${userId} ORDER BY created`;
      return rows.map((r) => ({
        endpoint: r.endpoint,
        userId: r.user_id,
        sessionHash: r.session_hash,
        p256dh: r.p256dh,
        auth: r.auth,
      }));
    },
    countForUser: async (userId) =>
      (await sql`SELECT count(*)::int AS n FROM push_subscriptions WHERE user_id = ${userId}`)[0]
        .n,
    async remove(endpoint, userId) {
      const r = userId === undefined
        ? await sql`DELETE FROM push_subscriptions WHERE endpoint = ${endpoint}`
        : await sql`DELETE FROM push_subscriptions
          WHERE endpoint = ${endpoint} AND user_id = ${userId}`;
      return r.count > 0;
    },
    autoAway: async (userId) =>
      (await sql`SELECT auto_away FROM push_prefs WHERE user_id = ${userId}`)[0]?.auto_away ===
        true,
    async setAutoAway(userId, on) {
      await sql`INSERT INTO push_prefs (user_id, auto_away) VALUES (${userId}, ${on})
        ON CONFLICT (user_id) DO UPDATE SET auto_away = excluded.auto_away`;
    },
    autoAwayUsers: async () =>
      (await sql`SELECT user_id FROM push_prefs WHERE auto_away`).map((r) => r.user_id),
  };
}
