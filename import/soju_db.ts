/**
 * A soju database, read-only: SQLite (a file) or PostgreSQL (a `postgres://` URL). Tables and
 * columns are soju's (`database/sqlite_schema.sql`, `postgres_schema.sql`); rows are read with
 * `SELECT *` so that an older soju, which lacks some columns, reads as well (missing is empty).
 */
import { DatabaseSync } from "node:sqlite";
import { ConfigError } from "../config.ts";
import { fileError } from "./common.ts";

export interface SojuUser {
  id: number;
  username: string;
  admin: boolean;
  nick: string;
  realname: string;
}

export interface SojuNetwork {
  id: number;
  user: number;
  name: string;
  addr: string;
  nick: string;
  username: string;
  realname: string;
  pass: string;
  connectCommands: string[];
  saslMechanism: string;
  saslPlainUsername: string;
  saslPlainPassword: string;
  enabled: boolean;
}

interface SojuChannel {
  network: number;
  name: string;
  key: string;
}

/** A conversation of the `db` message store. */
interface SojuTarget {
  id: number;
  network: number;
  target: string;
}

/** A stored message: the raw IRC line and its time (ms since the epoch). */
interface SojuMessage {
  id: number;
  raw: string;
  time: number;
}

/** What the importer reads from a soju database. */
export interface SojuDb {
  users(): Promise<SojuUser[]>;
  networks(): Promise<SojuNetwork[]>;
  channels(): Promise<SojuChannel[]>;
  /** Empty when the database has no message tables (an older soju, or the fs store). */
  targets(): Promise<SojuTarget[]>;
  /** A target's messages after id `after`, oldest first, `limit` at a time. */
  messages(target: number, after: number, limit: number): Promise<SojuMessage[]>;
  close(): Promise<void>;
}

type Row = Record<string, unknown>;
const str = (v: unknown) => (typeof v === "string" ? v : "");
const bool = (v: unknown, dflt: boolean) =>
  v === undefined || v === null ? dflt : v === true || v === 1 || v === 1n || v === "1";

function user(r: Row): SojuUser {
  return {
    id: Number(r.id),
    username: str(r.username),
    admin: bool(r.admin, false),
    nick: str(r.nick),
    realname: str(r.realname),
  };
}

function network(r: Row): SojuNetwork {
  return {
    id: Number(r.id),
    user: Number(r.user),
    name: str(r.name),
    addr: str(r.addr),
    nick: str(r.nick),
    username: str(r.username),
    realname: str(r.realname),
    pass: str(r.pass),
    connectCommands: str(r.connect_commands).split("\r\n").filter((c) => c.trim()),
    saslMechanism: str(r.sasl_mechanism).toUpperCase(),
    saslPlainUsername: str(r.sasl_plain_username),
    saslPlainPassword: str(r.sasl_plain_password),
    enabled: bool(r.enabled, true),
  };
}

const channel = (r: Row): SojuChannel => ({
  network: Number(r.network),
  name: str(r.name),
  key: str(r.key),
});

/** Opens a soju database: a `postgres://` (or `postgresql://`) URL, else a SQLite file. */
export async function openSojuDb(source: string): Promise<SojuDb> {
  if (/^postgres(ql)?:\/\//i.test(source)) return await openPg(source);
  return openSqlite(source);
}

function openSqlite(path: string): SojuDb {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, { readOnly: true });
    db.prepare(`SELECT id FROM "User" LIMIT 1`).all();
  } catch (err) {
    throw fileError(
      path,
      err instanceof Error && /no such table/.test(err.message)
        ? "not a soju database (it has no User table)"
        : err,
    );
  }
  const all = (sql: string, ...args: (number | string)[]) => {
    try {
      return db.prepare(sql).all(...args) as Row[];
    } catch (err) {
      throw fileError(path, err);
    }
  };
  const hasTable = (name: string) =>
    all("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?", name).length > 0;
  return {
    users: () => Promise.resolve(all(`SELECT * FROM "User" ORDER BY id`).map(user)),
    networks: () => Promise.resolve(all(`SELECT * FROM Network ORDER BY id`).map(network)),
    channels: () => Promise.resolve(all(`SELECT * FROM Channel ORDER BY id`).map(channel)),
    targets: () =>
      Promise.resolve(
        hasTable("MessageTarget")
          ? all("SELECT id, network, target FROM MessageTarget ORDER BY id").map((r) => ({
            id: Number(r.id),
            network: Number(r.network),
            target: str(r.target),
          }))
          : [],
      ),
    messages: (target, after, limit) =>
      Promise.resolve(
        all(
          "SELECT id, raw, time FROM Message WHERE target = ? AND id > ? ORDER BY id LIMIT ?",
          target,
          after,
          limit,
        ).map((r) => ({ id: Number(r.id), raw: str(r.raw), time: Date.parse(str(r.time)) })),
      ),
    close: () => Promise.resolve(db.close()),
  };
}

async function openPg(url: string): Promise<SojuDb> {
  const { default: postgres } = await import("postgres");
  // The URL holds a password: errors say which database by its host only.
  let where = "the PostgreSQL database";
  try {
    where = `the PostgreSQL database on ${new URL(url).host}`;
  } catch { /* why: a URL without a host: the errors name the database generically */ }
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  const query = async (text: string, args: (number | string)[] = []): Promise<Row[]> => {
    try {
      return [...(await sql.unsafe(text, args))] as Row[];
    } catch (err) {
      const e = err as { code?: string; message?: string };
      throw new ConfigError(
        `cannot import from ${where}: ${
          e.code === "42P01" ? "not a soju database (it has no User table)" : e.message ?? e
        }`,
      );
    }
  };
  await query(`SELECT id FROM "User" LIMIT 1`).catch(async (err) => {
    await sql.end({ timeout: 1 });
    throw err;
  });
  const hasTargets =
    (await query(`SELECT to_regclass('"MessageTarget"') IS NOT NULL AS there`))[0]?.there === true;
  return {
    users: async () => (await query(`SELECT * FROM "User" ORDER BY id`)).map(user),
    networks: async () => (await query(`SELECT * FROM "Network" ORDER BY id`)).map(network),
    channels: async () => (await query(`SELECT * FROM "Channel" ORDER BY id`)).map(channel),
    targets: async () =>
      hasTargets
        ? (await query(`SELECT id, network, target FROM "MessageTarget" ORDER BY id`)).map((r) => ({
          id: Number(r.id),
          network: Number(r.network),
          target: str(r.target),
        }))
        : [],
    messages: async (target, after, limit) =>
      (await query(
        `SELECT id, raw, time FROM "Message" WHERE target = $1 AND id > $2 ORDER BY id LIMIT $3`,
        [target, after, limit],
      )).map((r) => ({
        id: Number(r.id),
        raw: str(r.raw),
        time: r.time instanceof Date ? r.time.getTime() : Date.parse(String(r.time)),
      })),
    close: () => sql.end({ timeout: 5 }),
  };
}
