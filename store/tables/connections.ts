/** IRC connections, on either backend (store/connections.ts has the interface). */
import type { Expression, Selectable } from "kysely";
import { nowMicros } from "../../lib/time.ts";
import type { ClientCertificate, ConnectionRecord, ConnectionStore } from "../connections.ts";
import { prepared, type TableDb } from "./db.ts";
import type { ConnectionsTable } from "./schema.ts";

const CERTIFICATE = ["tls_cert", "tls_key", "cert_fingerprint"] as const;

function toRecord(r: Selectable<ConnectionsTable>): ConnectionRecord {
  return {
    id: r.id,
    userId: r.user_id,
    connectionId: r.connection_id,
    name: r.name,
    url: r.url,
    onConnectCommands: JSON.parse(r.on_connect_commands),
    wantedState: r.wanted_state,
    nick: r.nick,
    certFingerprint: r.cert_fingerprint ?? "",
    created: r.created,
  };
}

function toCertificate(
  r: { tls_cert: string; tls_key: string; cert_fingerprint: string } | undefined,
): ClientCertificate | undefined {
  if (!r?.tls_cert || !r.tls_key) return undefined;
  return { cert: r.tls_cert, key: r.tls_key, fingerprint: r.cert_fingerprint };
}

/** The ConnectionStore over a backend's executor. */
export function connectionStore(db: TableDb): ConnectionStore {
  const { q } = db;
  const all = q.selectFrom("connections").selectAll();
  const byId = async (id: number) => {
    const row = await db.first(all.where("id", "=", id));
    return row && toRecord(row);
  };
  const ofUser = prepared((userId: Expression<number>) =>
    all.where("user_id", "=", userId).orderBy("connection_id")
  );
  const certificate = async (id: number) =>
    toCertificate(
      await db.first(q.selectFrom("connections").select(CERTIFICATE).where("id", "=", id)),
    );
  return {
    create: async (c) =>
      toRecord(
        (await db.first(
          q.insertInto("connections").values({
            user_id: c.userId,
            connection_id: c.connectionId,
            name: c.name,
            url: c.url,
            on_connect_commands: JSON.stringify(c.onConnectCommands),
            wanted_state: c.wantedState,
            nick: c.nick ?? "",
            target: c.target ?? "",
            created: nowMicros(),
          }).returningAll(),
        ))!,
      ),
    list: async (userId) => (await db.all(ofUser(userId))).map(toRecord),
    async get(userId, connectionId) {
      const row = await db.first(
        all.where("user_id", "=", userId).where("connection_id", "=", connectionId),
      );
      return row && toRecord(row);
    },
    byId,
    count: async (userId) =>
      Number(
        (await db.first(
          q.selectFrom("connections").select((e) => e.fn.countAll<number>().as("n"))
            .where("user_id", "=", userId),
        ))?.n ?? 0,
      ),
    byTarget: async (userId, target) =>
      (await db.all(all.where("user_id", "=", userId).where("target", "=", target).limit(2)))
        .map(toRecord),
    untargeted: async (userId) =>
      (await db.all(all.where("user_id", "=", userId).where("target", "=", ""))).map(toRecord),
    async highestNumber(userId, base) {
      // The range of ids after `<base>-` in the (user_id, connection_id) index ('.' sorts right
      // after '-'; PostgreSQL's column compares by code point, as SQLite does); a suffix that is
      // not a number of up to 9 digits (`irc-libera-chat`) is left out. A user has few.
      const rows = await db.all(
        q.selectFrom("connections").select("connection_id").where("user_id", "=", userId)
          .where("connection_id", ">", `${base}-`).where("connection_id", "<", `${base}.`),
      );
      let n = 0;
      for (const { connection_id: id } of rows) {
        const suffix = id.slice(base.length + 1);
        if (/^[0-9]{1,9}$/.test(suffix)) n = Math.max(n, Number(suffix));
      }
      return n;
    },
    wanted: async () =>
      (await db.all(
        all.where("wanted_state", "=", "connected")
          .where("user_id", "in", q.selectFrom("users").select("id").where("suspended", "=", 0))
          .orderBy("id"),
      )).map(toRecord),
    async update(id, patch) {
      const set = {
        url: patch.url,
        name: patch.name,
        on_connect_commands: patch.onConnectCommands && JSON.stringify(patch.onConnectCommands),
        wanted_state: patch.wantedState,
        nick: patch.nick,
        target: patch.target,
      };
      if (Object.values(set).every((v) => v === undefined)) return byId(id);
      const row = await db.first(
        q.updateTable("connections").set(set).where("id", "=", id).returningAll(),
      );
      return row && toRecord(row);
    },
    remove: async (id) => await db.run(q.deleteFrom("connections").where("id", "=", id)) > 0,
    certificate,
    async setCertificate(id, c) {
      // First one wins: two connects racing to make one keep the same certificate.
      await db.run(
        q.updateTable("connections")
          .set({ tls_cert: c.cert, tls_key: c.key, cert_fingerprint: c.fingerprint })
          .where("id", "=", id).where("tls_cert", "=", ""),
      );
      return certificate(id);
    },
    async replaceCertificate(id, c) {
      await db.run(
        q.updateTable("connections")
          .set({ tls_cert: c.cert, tls_key: c.key, cert_fingerprint: c.fingerprint })
          .where("id", "=", id),
      );
    },
  };
}
