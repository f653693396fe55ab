/**
 * `parley import thelounge DIR`: a The Lounge 4.x home folder. Each `users/NAME.json` holds the
 * user's networks (with the uuid The Lounge gave each) and their channels and queries; each
 * `logs/NAME.sqlite3` holds the history, one row per message or channel event: network uuid,
 * lower-cased channel name, time in milliseconds, type, and the rest as JSON (server/models/msg.ts,
 * filled by server/plugins/irc-events/). Messages, notices and actions come in as messages; joins,
 * parts, quits, kicks, nick changes, topic changes and channel modes as channel events.
 */
import { join } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { ConfigError } from "../config.ts";
import { ircLower } from "../lib/casefold.ts";
import type { ChatType } from "../protocol/events.ts";
import {
  checkEmail,
  fileError,
  ImportSession,
  readJson,
  SourceFolder,
  type WantedConnection,
} from "./common.ts";
import { fitsIn, importedEvent, type ImportedLine } from "./events.ts";

/** The Lounge's message types that are messages in Parley. */
const TYPES: Record<string, ChatType> = {
  message: "private",
  notice: "notice",
  action: "action",
};

/** The Lounge's types of the channel events Parley keeps. */
const EVENT_TYPES = ["join", "part", "quit", "kick", "nick", "topic", "mode"];

/** A log row's `msg`, as The Lounge writes it; anything may be missing or of another type. */
interface LoungeMsg {
  /** Who said it or did it (a kick's kicker, a nick change's old nick). */
  from?: { nick?: unknown };
  /** A kick's kicked person. */
  target?: { nick?: unknown };
  /** A message, a reason, a topic, a mode with its arguments. */
  text?: unknown;
  /** A nick change's new nick. */
  new_nick?: unknown;
  self?: unknown;
  highlight?: unknown;
}

/** A nick of the message, when it is an object that has one. */
const nickOf = (who: unknown) =>
  who && typeof who === "object" ? (who as { nick?: unknown }).nick : undefined;

/**
 * A channel event row as Parley keeps it, read as The Lounge's irc-events write each type;
 * undefined when the row does not have that shape.
 *
 * @internal test seam
 */
export function loungeEvent(type: string, msg: LoungeMsg): ImportedLine | undefined {
  const nick = nickOf(msg.from);
  switch (type) {
    case "join":
      return importedEvent("join", { nick });
    case "part":
      return importedEvent("part", { nick, message: msg.text });
    case "quit":
      return importedEvent("quit", { nick, message: msg.text });
    case "kick":
      return importedEvent("kick", { nick: nickOf(msg.target), kicker: nick, message: msg.text });
    case "nick":
      return importedEvent("nick_change", { old_nick: nick, new_nick: msg.new_nick });
    case "topic":
      return importedEvent("topic", { nick, topic: msg.text });
    case "mode":
      // `${raw_modes} ${raw_params.join(" ")}`: a trailing space when the mode has no arguments.
      return importedEvent("mode", { nick, mode: msg.text });
  }
  return undefined;
}

const CHANNEL = /^[#&+!]/;

interface LoungeChannel {
  name?: unknown;
  key?: unknown;
  type?: unknown;
}

interface LoungeNetwork {
  uuid?: unknown;
  name?: unknown;
  host?: unknown;
  port?: unknown;
  tls?: unknown;
  rejectUnauthorized?: unknown;
  password?: unknown;
  nick?: unknown;
  username?: unknown;
  realname?: unknown;
  sasl?: unknown;
  saslAccount?: unknown;
  saslPassword?: unknown;
  commands?: unknown;
  channels?: unknown;
  userDisconnected?: unknown;
}

const str = (v: unknown) => (typeof v === "string" ? v : "");

/** Options of the The Lounge import. */
interface LoungeOptions {
  /** Makes NAME@domain for users without an explicit address. */
  domain?: string;
  /** Explicit addresses by The Lounge user name. */
  emails: Map<string, string>;
}

/**
 * The Parley connection URL of a The Lounge network.
 *
 * @internal test seam
 */
export function networkUrl(n: LoungeNetwork): string {
  const tls = n.tls === true;
  const url = new URL(`${tls ? "ircs" : "irc"}://${str(n.host) || "invalid"}`);
  const port = Number(n.port);
  if (Number.isInteger(port) && port > 0) url.port = String(port);
  const sasl = str(n.sasl);
  if (sasl === "plain") {
    url.username = encodeURIComponent(str(n.saslAccount));
    url.password = encodeURIComponent(str(n.saslPassword));
    url.searchParams.set("sasl", "plain");
  } else if (sasl === "external") {
    url.searchParams.set("sasl", "external");
  } else if (str(n.password)) {
    url.password = encodeURIComponent(str(n.password));
  }
  if (str(n.nick)) url.searchParams.set("nick", str(n.nick));
  if (str(n.username) && str(n.username) !== str(n.nick)) {
    url.searchParams.set("username", str(n.username));
  }
  if (str(n.realname)) url.searchParams.set("realname", str(n.realname));
  if (tls && n.rejectUnauthorized === false) url.searchParams.set("tls_verify", "0");
  return url.href;
}

/** Lists the user files of the home folder, or says it is not one. */
async function userFiles(folder: SourceFolder): Promise<string[]> {
  const users = join(folder.root, "users");
  if (!(await folder.inside(users))) {
    throw new ConfigError(`${folder.root} is not a The Lounge home folder (no users folder in it)`);
  }
  return (await folder.list(users))
    .filter((e) => e.isFile && e.name.endsWith(".json"))
    .map((e) => e.name.slice(0, -5));
}

/** Imports every user of a The Lounge home folder. */
export async function importTheLounge(
  session: ImportSession,
  folder: SourceFolder,
  opts: LoungeOptions,
): Promise<void> {
  const dir = folder.root;
  const names = await userFiles(folder);
  // Every address first: a missing one stops the import before anything is written.
  const emails = new Map<string, string>();
  for (const name of names) {
    const given = opts.emails.get(name);
    if (!given && !opts.domain) {
      throw new ConfigError(
        `The Lounge user "${name}" has no email: pass --domain example.org or --email ${name}=ADDRESS`,
      );
    }
    emails.set(name, checkEmail(given ?? `${name}@${opts.domain}`, `The Lounge user "${name}"`));
  }
  for (const name of [...opts.emails.keys()].filter((n) => !names.includes(n))) {
    throw new ConfigError(`--email ${name}=...: there is no users/${name}.json in ${dir}`);
  }
  await session.refuseExisting(emails.values());

  for (const name of names) {
    const file = join(dir, "users", `${name}.json`);
    const json = await readJson(file);
    const user = await session.user(emails.get(name)!);
    const networks = Array.isArray(json.networks) ? (json.networks as LoungeNetwork[]) : [];
    // network uuid -> connection row and its conversations by lower-cased name
    const byUuid = new Map<string, { id: number; nick: string; network: LoungeNetwork }>();
    for (const n of networks) {
      if (!n || typeof n !== "object") throw fileError(file, "a network is not an object");
      const channels = Array.isArray(n.channels) ? (n.channels as LoungeChannel[]) : [];
      const keyed = channels.filter((c) => str(c.key) && CHANNEL.test(str(c.name)));
      const want: WantedConnection = {
        name: str(n.name) || str(n.host),
        url: networkUrl(n),
        // Parley keeps no channel keys: a keyed channel is joined by an on-connect command.
        onConnectCommands: [
          ...(Array.isArray(n.commands) ? n.commands.filter((c) => typeof c === "string") : []),
          ...keyed.map((c) => `/join ${str(c.name)} ${str(c.key)}`),
        ],
        wantedState: n.userDisconnected === true ? "disconnected" : "connected",
      };
      const connection = await session.connection(user.id, want, file);
      for (const c of channels) {
        const cname = str(c.name);
        if (!cname) continue;
        const isQuery = c.type === "query" || !CHANNEL.test(cname);
        await session.conversation(connection.id, cname, { joined: !isQuery });
      }
      if (str(n.uuid)) {
        byUuid.set(str(n.uuid), { id: connection.id, nick: str(n.nick), network: n });
      }
    }
    const log = join(dir, "logs", `${name}.sqlite3`);
    // No log (logging was off for this user), or a link out of the folder: no history.
    if (await folder.inside(log)) await importLog(session, log, user.id, byUuid);
  }
}

/** Rows read from a log at a time. */
const READ_CHUNK = 10_000;

type LogRow = {
  id: number;
  network: string;
  channel: string;
  time: number;
  type: string;
  msg: string;
};

/**
 * Imports one user's SQLite log in insertion order (which is time order: The Lounge appends),
 * read in chunks by rowid, the fastest way through a large log.
 */
async function importLog(
  session: ImportSession,
  path: string,
  userId: number,
  networks: Map<string, { id: number; nick: string; network: LoungeNetwork }>,
): Promise<void> {
  let db: DatabaseSync;
  let read: StatementSync;
  try {
    db = new DatabaseSync(path, { readOnly: true });
    const types = [...Object.keys(TYPES), ...EVENT_TYPES].map((t) => `'${t}'`).join(", ");
    read = db.prepare(
      `SELECT id, network, channel, time, type, msg FROM messages
       WHERE id > ? AND type IN (${types}) ORDER BY id LIMIT ?`,
    );
  } catch (err) {
    throw fileError(path, err);
  }
  const conversations = new Map<
    string,
    { id: number; where: "channel" | "private" | "server"; nick: string }
  >();
  try {
    for (let after = 0;;) {
      const rows = read.all(after, READ_CHUNK) as unknown as LogRow[];
      if (!rows.length) break;
      after = rows[rows.length - 1].id;
      for (const row of rows) {
        const net = networks.get(row.network);
        if (!net) {
          session.summary.skipped++;
          continue;
        }
        const key = `${row.network}\n${row.channel}`;
        let conversation = conversations.get(key);
        if (!conversation) {
          // The lobby (the network's own messages) is logged under the network's name.
          const lobby = row.channel === str(net.network.name).toLowerCase() &&
            !CHANNEL.test(row.channel);
          const name = lobby ? "" : spelling(net.network, row.channel);
          const conv = await session.conversation(net.id, name);
          const where = lobby ? "server" : CHANNEL.test(name) ? "channel" : "private";
          conversation = { id: conv.id, where, nick: net.nick };
          conversations.set(key, conversation);
        }
        let msg: LoungeMsg;
        try {
          msg = JSON.parse(row.msg);
        } catch {
          session.summary.skipped++;
          continue;
        }
        if (!msg || typeof msg !== "object") {
          session.summary.skipped++;
          continue;
        }
        const ts = Math.trunc(Number(row.time)) * 1000;
        const type = TYPES[row.type];
        if (!type) {
          // A channel event: kept when it has its type's shape, where Parley keeps one.
          const event = loungeEvent(row.type, msg);
          if (!event || !fitsIn(event, conversation.where) || !Number.isFinite(ts)) {
            session.summary.skipped++;
            continue;
          }
          session.message({
            conversation: conversation.id,
            userId,
            ts,
            ...event,
            highlight: false,
          });
          continue;
        }
        const self = msg.self === true;
        session.message({
          conversation: conversation.id,
          userId,
          ts,
          type,
          from: str(nickOf(msg.from)) || (self ? conversation.nick : ""),
          text: str(msg.text),
          // As Parley records them: mentions, and every private message from someone else.
          highlight: !self && (conversation.where === "private" || msg.highlight === true),
        });
      }
    }
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw fileError(path, err);
  } finally {
    db.close();
  }
}

/** The channel's name as the user file spells it (the log keeps it lower-cased). */
function spelling(n: LoungeNetwork, lower: string): string {
  const channels = Array.isArray(n.channels) ? (n.channels as LoungeChannel[]) : [];
  return channels.map((c) => str(c.name)).find((name) => ircLower(name) === ircLower(lower)) ??
    lower;
}
