/** IRC connections in SQLite (store/connections.ts has the interface and its records). */
import type { DatabaseSync } from "node:sqlite";
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

/** The SQLite implementation of ConnectionStore. */
export function sqliteConnectionStore(db: DatabaseSync): ConnectionStore {
  const q = {
    insert: db.prepare(`INSERT INTO connections
      (user_id, connection_id, name, url, on_connect_commands, wanted_state, nick, target,
        created)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`),
    list: db.prepare("SELECT * FROM connections WHERE user_id = ? ORDER BY connection_id"),
    get: db.prepare("SELECT * FROM connections WHERE user_id = ? AND connection_id = ?"),
    byId: db.prepare("SELECT * FROM connections WHERE id = ?"),
    count: db.prepare("SELECT count(*) AS n FROM connections WHERE user_id = ?"),
    byTarget: db.prepare("SELECT * FROM connections WHERE user_id = ? AND target = ? LIMIT 2"),
    untargeted: db.prepare("SELECT * FROM connections WHERE user_id = ? AND target = ''"),
    // The range of ids after `<base>-` in the (user_id, connection_id) index; a suffix that is
    // not a number (`irc-libera-chat`) is left out.
    highestNumber: db.prepare(`SELECT coalesce(max(CAST(substr(connection_id, ?) AS INTEGER)), 0)
      AS n FROM connections WHERE user_id = ? AND connection_id > ? AND connection_id < ?
      AND substr(connection_id, ?) NOT GLOB '*[^0-9]*' AND length(connection_id) < ?`),
    wanted: db.prepare("SELECT * FROM connections WHERE wanted_state = 'connected' ORDER BY id"),
    remove: db.prepare("DELETE FROM connections WHERE id = ?"),
    certificate: db.prepare(
      "SELECT tls_cert, tls_key, cert_fingerprint FROM connections WHERE id = ?",
    ),
    // First one wins: two connects racing to make one keep the same certificate.
    setCertificate: db.prepare(`UPDATE connections SET tls_cert = ?, tls_key = ?,
      cert_fingerprint = ? WHERE id = ? AND tls_cert = ''`),
    replaceCertificate: db.prepare(`UPDATE connections SET tls_cert = ?, tls_key = ?,
      cert_fingerprint = ? WHERE id = ?`),
  };
  const byId = (id: number) => {
    const row = q.byId.get(id) as ConnectionRow | undefined;
    return row && toRecord(row);
  };
  return {
    create: (c) =>
      Promise.resolve(toRecord(
        q.insert.get(
          c.userId,
          c.connectionId,
          c.name,
          c.url,
          JSON.stringify(c.onConnectCommands),
          c.wantedState,
          c.nick ?? "",
          c.target ?? "",
          nowMicros(),
        ) as unknown as ConnectionRow,
      )),
    list: (userId) =>
      Promise.resolve((q.list.all(userId) as unknown as ConnectionRow[]).map(toRecord)),
    get(userId, connectionId) {
      const row = q.get.get(userId, connectionId) as ConnectionRow | undefined;
      return Promise.resolve(row && toRecord(row));
    },
    byId: (id) => Promise.resolve(byId(id)),
    count: (userId) => Promise.resolve((q.count.get(userId) as { n: number }).n),
    byTarget: (userId, target) =>
      Promise.resolve(
        (q.byTarget.all(userId, target) as unknown as ConnectionRow[]).map(toRecord),
      ),
    untargeted: (userId) =>
      Promise.resolve((q.untargeted.all(userId) as unknown as ConnectionRow[]).map(toRecord)),
    highestNumber(userId, base) {
      const from = base.length + 2; // substr counts from 1
      const row = q.highestNumber.get(
        from,
        userId,
        `${base}-`,
        `${base}.`, // '.' sorts right after '-'
        from,
        from + 9, // a number of up to 9 digits
      ) as { n: number };
      return Promise.resolve(row.n);
    },
    wanted: () => Promise.resolve((q.wanted.all() as unknown as ConnectionRow[]).map(toRecord)),
    update(id, patch) {
      const sets: string[] = [];
      const values: string[] = [];
      for (const [key, column] of Object.entries(COLUMNS)) {
        const value = patch[key as keyof ConnectionPatch];
        if (value === undefined) continue;
        sets.push(`${column} = ?`);
        values.push(Array.isArray(value) ? JSON.stringify(value) : value);
      }
      if (sets.length) {
        db.prepare(`UPDATE connections SET ${sets.join(", ")} WHERE id = ?`).run(...values, id);
      }
      return Promise.resolve(byId(id));
    },
    remove: (id) => Promise.resolve(Number(q.remove.run(id).changes) > 0),
    certificate: (id) =>
      Promise.resolve(toCertificate(q.certificate.get(id) as CertificateRow | undefined)),
    setCertificate(id, c) {
      q.setCertificate.run(c.cert, c.key, c.fingerprint, id);
      return Promise.resolve(toCertificate(q.certificate.get(id) as CertificateRow | undefined));
    },
    replaceCertificate(id, c) {
      q.replaceCertificate.run(c.cert, c.key, c.fingerprint, id);
      return Promise.resolve();
    },
  };
}
