/** IRC connections in PostgreSQL (store/connections.ts has the interface). */
import { nowMicros } from "../../lib/time.ts";
import {
  type CertificateRow,
  COLUMNS,
  type ConnectionPatch,
  type ConnectionRow,
  type ConnectionStore,
  toCertificate,
  toRecord,
} from "../connections.ts";
import { pgString, type Sql } from "./db.ts";

/** The PostgreSQL implementation of ConnectionStore. */
export function pgConnectionStore(sql: Sql): ConnectionStore {
  const byId = async (id: number) => {
    const [row] = await sql<ConnectionRow[]>`SELECT * FROM connections WHERE id = ${id}`;
    return row && toRecord(row);
  };
  return {
    async create(c) {
      const [row] = await sql<ConnectionRow[]>`INSERT INTO connections
        (user_id, connection_id, name, url, on_connect_commands, wanted_state, nick, target,
          created)
        VALUES (${c.userId}, ${pgString(c.connectionId)}, ${pgString(c.name)}, ${pgString(c.url)},
          ${pgString(JSON.stringify(c.onConnectCommands))}, ${c.wantedState},
          ${pgString(c.nick ?? "")}, ${pgString(c.target ?? "")}, ${nowMicros()})
        RETURNING *`;
      return toRecord(row);
    },
    list: async (userId) =>
      (await sql<ConnectionRow[]>`SELECT * FROM connections WHERE user_id = ${userId}
        ORDER BY connection_id`).map(toRecord),
    async get(userId, connectionId) {
      const [row] = await sql<ConnectionRow[]>`SELECT * FROM connections
        WHERE user_id = ${userId} AND connection_id = ${pgString(connectionId)}`;
      return row && toRecord(row);
    },
    byId,
    count: async (userId) =>
      Number(
        (await sql<{ n: string }[]>`SELECT count(*) AS n FROM connections
        WHERE user_id = ${userId}`)[0].n,
      ),
    byTarget: async (userId, target) =>
      (await sql<ConnectionRow[]>`SELECT * FROM connections
        WHERE user_id = ${userId} AND target = ${pgString(target)} LIMIT 2`).map(toRecord),
    untargeted: async (userId) =>
      (await sql<ConnectionRow[]>`SELECT * FROM connections
        WHERE user_id = ${userId} AND target = ''`).map(toRecord),
    async highestNumber(userId, base) {
      // The range of ids after `<base>-` in the (user_id, connection_id) index (collation "C");
      // a suffix that is not a number (`irc-libera-chat`) is left out.
      const from = base.length + 2;
      const [row] = await sql<{ n: number | null }[]>`SELECT
          max(substr(connection_id, ${from})::integer) AS n
        FROM connections WHERE user_id = ${userId}
          AND connection_id > ${pgString(`${base}-`)} AND connection_id < ${pgString(`${base}.`)}
          AND substr(connection_id, ${from}) ~ '^[0-9]{1,9}$'`;
      return row?.n ?? 0;
    },
    wanted: async () =>
      (await sql<ConnectionRow[]>`SELECT * FROM connections WHERE wanted_state = 'connected'
        ORDER BY id`).map(toRecord),
    async update(id, patch) {
      const set: Record<string, string> = {};
      for (const [key, column] of Object.entries(COLUMNS)) {
        const value = patch[key as keyof ConnectionPatch];
        if (value === undefined) continue;
        set[column] = pgString(Array.isArray(value) ? JSON.stringify(value) : value);
      }
      if (!Object.keys(set).length) return byId(id);
      const [row] = await sql<ConnectionRow[]>`UPDATE connections SET ${sql(set)}
        WHERE id = ${id} RETURNING *`;
      return row && toRecord(row);
    },
    remove: async (id) => (await sql`DELETE FROM connections WHERE id = ${id}`).count > 0,
    certificate: async (id) =>
      toCertificate(
        (await sql<CertificateRow[]>`SELECT tls_cert, tls_key, cert_fingerprint
          FROM connections WHERE id = ${id}`)[0],
      ),
    async setCertificate(id, c) {
      // First one wins: two connects racing to make one keep the same certificate.
      await sql`UPDATE connections SET tls_cert = ${pgString(c.cert)}, tls_key = ${
        pgString(c.key)
      }, cert_fingerprint = ${pgString(c.fingerprint)} WHERE id = ${id} AND tls_cert = ''`;
      return toCertificate(
        (await sql<CertificateRow[]>`SELECT tls_cert, tls_key, cert_fingerprint
          FROM connections WHERE id = ${id}`)[0],
      );
    },
    async replaceCertificate(id, c) {
      await sql`UPDATE connections SET tls_cert = ${pgString(c.cert)}, tls_key = ${
        pgString(c.key)
      }, cert_fingerprint = ${pgString(c.fingerprint)} WHERE id = ${id}`;
    },
  };
}
