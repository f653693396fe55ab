/** Web Push subscriptions and choices in SQLite (store/push.ts has the interface and its records). */
import type { DatabaseSync } from "node:sqlite";
import type { IrcPushSubscriptionRecord, PushStore } from "../push.ts";

/** A user's subscriptions of both kinds except `endpoint`: the shared cap counts them. */
const OTHERS = `(SELECT count(*) FROM push_subscriptions WHERE user_id = ? AND endpoint <> ?) +
  (SELECT count(*) FROM irc_push_subscriptions WHERE user_id = ? AND endpoint <> ?)`;

interface IrcRow {
  endpoint: string;
  user_id: number;
  connection: number | null;
  client: string;
  credential: string;
  p256dh: string;
  auth: string;
}

interface Row {
  endpoint: string;
  user_id: number;
  session_hash: string;
  p256dh: string;
  auth: string;
}

/** The SQLite implementation of PushStore. */
export function sqlitePushStore(db: DatabaseSync): PushStore {
  const q = {
    save: db.prepare(
      `INSERT INTO push_subscriptions (endpoint, user_id, session_hash, p256dh, auth, created)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(endpoint) DO UPDATE SET user_id = excluded.user_id,
       session_hash = excluded.session_hash, p256dh = excluded.p256dh, auth = excluded.auth`,
    ),
    // One statement: SQLite holds its write lock from the count to the insert.
    saveWithin: db.prepare(
      `INSERT INTO push_subscriptions (endpoint, user_id, session_hash, p256dh, auth, created)
       SELECT ?, ?, ?, ?, ?, ? WHERE ${OTHERS} < ?
       ON CONFLICT(endpoint) DO UPDATE SET user_id = excluded.user_id,
       session_hash = excluded.session_hash, p256dh = excluded.p256dh, auth = excluded.auth`,
    ),
    saveIrcWithin: db.prepare(
      `INSERT INTO irc_push_subscriptions
         (endpoint, user_id, connection, client, credential, p256dh, auth, created)
       SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE ${OTHERS} < ?
       ON CONFLICT(endpoint) DO UPDATE SET user_id = excluded.user_id,
       connection = excluded.connection, client = excluded.client,
       credential = excluded.credential, p256dh = excluded.p256dh, auth = excluded.auth`,
    ),
    ircForUser: db.prepare(
      `SELECT endpoint, user_id, connection, client, credential, p256dh, auth
       FROM irc_push_subscriptions WHERE user_id = ? ORDER BY created`,
    ),
    removeIrc: db.prepare("DELETE FROM irc_push_subscriptions WHERE endpoint = ?"),
    removeOwnIrc: db.prepare(
      "DELETE FROM irc_push_subscriptions WHERE endpoint = ? AND user_id = ?",
    ),
    forUser: db.prepare(
      `SELECT endpoint, user_id, session_hash, p256dh, auth FROM push_subscriptions
       WHERE user_id = ? ORDER BY created`,
    ),
    count: db.prepare("SELECT count(*) AS n FROM push_subscriptions WHERE user_id = ?"),
    remove: db.prepare("DELETE FROM push_subscriptions WHERE endpoint = ?"),
    removeOwn: db.prepare("DELETE FROM push_subscriptions WHERE endpoint = ? AND user_id = ?"),
    autoAway: db.prepare("SELECT auto_away FROM push_prefs WHERE user_id = ?"),
    autoAwayUsers: db.prepare("SELECT user_id FROM push_prefs WHERE auto_away = 1"),
    setAutoAway: db.prepare(
      `INSERT INTO push_prefs (user_id, auto_away) VALUES (?, ?)
       ON CONFLICT(user_id) DO UPDATE SET auto_away = excluded.auto_away`,
    ),
  };
  return {
    save(s) {
      q.save.run(s.endpoint, s.userId, s.sessionHash, s.p256dh, s.auth, Date.now());
      return Promise.resolve();
    },
    saveWithin(s, max) {
      const r = q.saveWithin.run(
        s.endpoint,
        s.userId,
        s.sessionHash,
        s.p256dh,
        s.auth,
        Date.now(),
        s.userId,
        s.endpoint,
        s.userId,
        s.endpoint,
        max,
      );
      return Promise.resolve(Number(r.changes) > 0);
    },
    saveIrcWithin(s, max) {
      const r = q.saveIrcWithin.run(
        s.endpoint,
        s.userId,
        s.connection,
        s.client,
        s.credential,
        s.p256dh,
        s.auth,
        Date.now(),
        s.userId,
        s.endpoint,
        s.userId,
        s.endpoint,
        max,
      );
      return Promise.resolve(Number(r.changes) > 0);
    },
    ircForUser(userId) {
      const rows = q.ircForUser.all(userId) as unknown as IrcRow[];
      return Promise.resolve(rows.map((r): IrcPushSubscriptionRecord => ({
        endpoint: r.endpoint,
        userId: r.user_id,
        connection: r.connection,
        client: r.client,
        credential: r.credential,
        p256dh: r.p256dh,
        auth: r.auth,
      })));
    },
    removeIrc(endpoint, userId) {
      const r = userId === undefined
        ? q.removeIrc.run(endpoint)
        : q.removeOwnIrc.run(endpoint, userId);
      return Promise.resolve(Number(r.changes) > 0);
    },
    forUser(userId) {
      const rows = q.forUser.all(userId) as unknown as Row[];
      return Promise.resolve(rows.map((r) => ({
        endpoint: r.endpoint,
        userId: r.user_id,
        sessionHash: r.session_hash,
        p256dh: r.p256dh,
        auth: r.auth,
      })));
    },
    countForUser: (userId) => Promise.resolve((q.count.get(userId) as { n: number }).n),
    remove(endpoint, userId) {
      const r = userId === undefined ? q.remove.run(endpoint) : q.removeOwn.run(endpoint, userId);
      return Promise.resolve(Number(r.changes) > 0);
    },
    autoAway(userId) {
      const row = q.autoAway.get(userId) as { auto_away: number } | undefined;
      return Promise.resolve(row?.auto_away === 1);
    },
    autoAwayUsers() {
      const rows = q.autoAwayUsers.all() as { user_id: number }[];
      return Promise.resolve(rows.map((r) => r.user_id));
    },
    setAutoAway(userId, on) {
      q.setAutoAway.run(userId, on ? 1 : 0);
      return Promise.resolve();
    },
  };
}
