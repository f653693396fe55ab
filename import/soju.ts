/**
 * `parley import soju DB [--logs DIR]`: a soju database (soju_db.ts) with its users, networks
 * and channels, and the history of either message store: `db` (the `Message` table: raw IRC
 * lines with their time) or `fs` (`DIR/USER/NETWORK/TARGET/YYYY-MM-DD.log` in ZNC's format, in
 * the local time of the machine soju ran on; `/` and `\` in names are written `-`). Both keep
 * messages and channel events (joins, parts, kicks, quits, nick changes, topics, channel modes).
 */
import { ConfigError } from "../config.ts";
import { ircLower } from "../lib/casefold.ts";
import { isHighlight } from "../irc/chat/highlight.ts";
import { parseMessage } from "../irc/protocol/message.ts";
import { checkEmail, ImportSession, SourceFolder } from "./common.ts";
import { fitsIn, importedEvent, type ImportedLine } from "./events.ts";
import type { SojuDb, SojuNetwork, SojuUser } from "./soju_db.ts";
import { importDays } from "./znc.ts";
import { LocalTime } from "./znc_log.ts";

const CHANNEL = /^[#&+!]/;
const DAY_FILE = /^(\d{4})-(\d{2})-(\d{2})\.log$/;
const NO_KEYWORDS: string[] = [];
/** Messages read from the database at a time. */
const READ_CHUNK = 10_000;

/** Options of the soju import. */
interface SojuOptions {
  /** Makes NAME@domain for users without an explicit address. */
  domain?: string;
  /** Explicit addresses by soju user name. */
  emails: Map<string, string>;
  /** The `fs` message store's folder. */
  logs?: SourceFolder;
  /** The zone soju's machine wrote the fs logs in (this machine's when not given). */
  timezone?: string;
}

/** soju's name for a network in paths and messages: its name, else its address. */
const networkName = (n: SojuNetwork) => n.name || n.addr;

/** soju's EscapeFilename: how a user, network or target is named on disk. */
const escapeFilename = (s: string) =>
  s === "." ? "-" : s === ".." ? "--" : s.replaceAll("/", "-").replaceAll("\\", "-");

/** The nick soju uses on a network (network, else user, else user name). */
const nickOf = (u: SojuUser, n: SojuNetwork) => n.nick || u.nick || u.username;

/**
 * The Parley connection URL of a soju network, or undefined for a Unix socket.
 *
 * @internal test seam
 */
export function sojuNetworkUrl(u: SojuUser, n: SojuNetwork): string | undefined {
  const addr = n.addr.includes("://") ? n.addr : `ircs://${n.addr}`;
  const scheme = addr.slice(0, addr.indexOf("://")).toLowerCase();
  if (scheme !== "ircs" && scheme !== "irc+insecure" && scheme !== "irc") return undefined;
  let parsed: URL;
  try {
    parsed = new URL(`http${addr.slice(addr.indexOf("://"))}`);
  } catch {
    return `ircs://invalid`;
  }
  const url = new URL(`${scheme === "ircs" ? "ircs" : "irc"}://${parsed.host}`);
  const nick = nickOf(u, n);
  if (n.saslMechanism === "PLAIN" && n.saslPlainPassword) {
    url.username = encodeURIComponent(n.saslPlainUsername || nick);
    url.password = encodeURIComponent(n.saslPlainPassword);
    url.searchParams.set("sasl", "plain");
  } else {
    if (n.saslMechanism === "EXTERNAL") url.searchParams.set("sasl", "external");
    if (n.pass) url.password = encodeURIComponent(n.pass);
  }
  url.searchParams.set("nick", nick);
  const username = n.username || nick;
  if (username !== nick) url.searchParams.set("username", username);
  const realname = n.realname || u.realname;
  if (realname) url.searchParams.set("realname", realname);
  return url.href;
}

/** Who a line's source names: a nick (`nick!user@host`), or a server's name. */
const sourceName = (prefix: string) => prefix.split(/[!@]/, 1)[0];

/**
 * A raw IRC line of soju's `db` message store as Parley keeps it: a PRIVMSG or NOTICE as a
 * message (a CTCP ACTION as an action), a JOIN, PART, KICK, QUIT, NICK, TOPIC or channel MODE as
 * a channel event with its fields (importedEvent); undefined for anything else (other CTCPs,
 * user modes, other commands) and for a line or event that is malformed.
 *
 * @internal test seam
 */
export function parseStoredLine(raw: string): ImportedLine | undefined {
  const m = parseMessage(raw);
  if (!m) return undefined;
  const from = sourceName(m.prefix);
  const [first = "", second, third] = m.params;
  switch (m.command) {
    case "NOTICE":
      return second === undefined ? undefined : { type: "notice", from, text: second };
    case "PRIVMSG": {
      if (second === undefined) return undefined;
      if (second.startsWith("\x01ACTION")) {
        const body = second.slice(7).replace(/^ /, "");
        return { type: "action", from, text: body.endsWith("\x01") ? body.slice(0, -1) : body };
      }
      if (second.startsWith("\x01")) return undefined; // other CTCPs are not messages
      return { type: "private", from, text: second };
    }
    case "JOIN":
      return CHANNEL.test(first) ? importedEvent("join", { nick: from }) : undefined;
    case "PART":
      return CHANNEL.test(first)
        ? importedEvent("part", { nick: from, message: second })
        : undefined;
    case "KICK":
      return CHANNEL.test(first)
        ? importedEvent("kick", { nick: second, kicker: from, message: third })
        : undefined;
    case "QUIT":
      return importedEvent("quit", { nick: from, message: first });
    case "NICK":
      return importedEvent("nick_change", { old_nick: from, new_nick: first });
    case "TOPIC":
      return CHANNEL.test(first)
        ? importedEvent("topic", { nick: from, topic: second ?? "" })
        : undefined;
    case "MODE":
      // A channel's modes only: a user's have no conversation.
      return CHANNEL.test(first)
        ? importedEvent("mode", { nick: from, mode: m.params.slice(1).join(" ") })
        : undefined;
  }
  return undefined;
}

/** Imports every user of a soju database and its message store. */
export async function importSoju(
  session: ImportSession,
  db: SojuDb,
  source: string,
  opts: SojuOptions,
): Promise<void> {
  const users = await db.users();
  if (!users.length) throw new ConfigError(`${source} has no soju users`);
  const names = users.map((u) => u.username);
  const emails = new Map<string, string>();
  for (const name of names) {
    const given = opts.emails.get(name);
    if (!given && !opts.domain) {
      throw new ConfigError(
        `soju user "${name}" has no email: pass --domain example.org or --email ${name}=ADDRESS`,
      );
    }
    emails.set(name, checkEmail(given ?? `${name}@${opts.domain}`, `soju user "${name}"`));
  }
  for (const name of [...opts.emails.keys()].filter((n) => !names.includes(n))) {
    throw new ConfigError(`--email ${name}=...: the soju database has no user "${name}"`);
  }
  const zone = new LocalTime(opts.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone);
  await session.refuseExisting(emails.values());
  const networks = await db.networks();
  const channels = await db.channels();
  const targets = await db.targets();

  for (const u of users) {
    const user = await session.user(emails.get(u.username)!, u.admin ? ["admin"] : []);
    const userLogs = opts.logs && `${opts.logs.root}/${escapeFilename(u.username)}`;
    for (const n of networks.filter((n) => n.user === u.id)) {
      const url = sojuNetworkUrl(u, n);
      if (!url) {
        console.error(
          `skipped the network "${networkName(n)}": a Unix socket, which Parley does not reach`,
        );
        continue;
      }
      const mine = channels.filter((c) => c.network === n.id && c.name);
      const connection = await session.connection(user.id, {
        name: networkName(n),
        url,
        // soju's connect commands are raw IRC lines.
        onConnectCommands: n.connectCommands.map((c) => `/quote ${c}`),
        wantedState: n.enabled ? "connected" : "disconnected",
      }, source);
      const spelled = new Map<string, string>();
      for (const c of mine) {
        spelled.set(ircLower(c.name), c.name);
        // A detached channel is still joined in soju.
        await session.conversation(connection.id, c.name, { joined: true, key: c.key });
      }
      const nick = nickOf(u, n);
      const target = async (name: string) => {
        const spelling = spelled.get(ircLower(name)) ?? name;
        const conv = await session.conversation(connection.id, spelling);
        return { id: conv.id, isPrivate: !CHANNEL.test(spelling) };
      };
      // The fs store.
      const netDir = userLogs && `${userLogs}/${escapeFilename(networkName(n))}`;
      if (opts.logs && netDir && (await opts.logs.inside(netDir))) {
        // A query's folder is named as the nick was spelt (Dave, dave): one conversation, its
        // days merged so that they come in order.
        const windows = new Map<string, { name: string; days: { path: string; day: number }[] }>();
        for (const w of await opts.logs.list(netDir)) {
          if (!w.isDirectory) continue;
          const window = windows.get(ircLower(w.name)) ?? { name: w.name, days: [] };
          for (const f of await opts.logs.list(w.path)) {
            const m = DAY_FILE.exec(f.name);
            if (f.isFile && m) {
              window.days.push({ path: f.path, day: Date.UTC(+m[1], +m[2] - 1, +m[3]) });
            }
          }
          windows.set(ircLower(w.name), window);
        }
        for (const { name, days } of windows.values()) {
          if (!days.length) continue;
          const conv = await target(name);
          await importDays(session, days, {
            conversation: conv.id,
            userId: user.id,
            nick,
            isPrivate: conv.isPrivate,
            zone,
          });
        }
      }
      // The db store.
      for (const t of targets.filter((t) => t.network === n.id && t.target)) {
        const conv = await target(t.target);
        const where = conv.isPrivate ? "private" : "channel";
        const self = ircLower(nick);
        for (let after = 0;;) {
          const rows = await db.messages(t.id, after, READ_CHUNK);
          if (!rows.length) break;
          after = rows[rows.length - 1].id;
          for (const row of rows) {
            const m = parseStoredLine(row.raw);
            if (!m || !Number.isFinite(row.time) || !fitsIn(m, where)) {
              session.summary.skipped++;
              continue;
            }
            const own = ircLower(m.from) === self;
            session.message({
              conversation: conv.id,
              userId: user.id,
              ts: Math.trunc(row.time) * 1000,
              ...m,
              // As Parley records them: mentions, and every private message from someone else.
              highlight: m.fields === undefined && !own &&
                isHighlight({
                  text: m.text,
                  nick,
                  keywords: NO_KEYWORDS,
                  isPrivate: conv.isPrivate,
                }),
            });
          }
        }
      }
    }
  }
}
