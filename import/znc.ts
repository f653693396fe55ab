/**
 * `parley import znc DIR`: a ZNC 1.8 data folder. `configs/znc.conf` holds the users (nick,
 * ident, real name, time zone), their networks (servers, `+port` for TLS, channels with keys)
 * and the modules loaded; the `sasl` module keeps a network's account in
 * `users/U/networks/N/moddata/sasl/.registry`. The `log` module writes one file per window and
 * day in the user's time zone, as a network module in `users/U/networks/N/moddata/log/WINDOW/`,
 * a user module in `users/U/moddata/log/N/WINDOW/`, a global one in `moddata/log/U/N/WINDOW/`
 * (window names lower-cased); its line format (messages and channel events) is in znc_log.ts.
 */
import { join } from "node:path";
import { ConfigError } from "../config.ts";
import { ircLower } from "../lib/casefold.ts";
import { isHighlight } from "../irc/chat/highlight.ts";
import { nickFromEmail } from "../irc/url.ts";
import { checkEmail, fileError, ImportSession, SourceFolder } from "./common.ts";
import { type Line, readLines } from "./lines.ts";
import {
  blocks,
  readRegistry,
  readZncConf,
  truthy,
  value,
  values,
  type ZncBlock,
} from "./znc_conf.ts";
import { LocalTime, parseLogLine, type TimestampFormat, timestampFormat } from "./znc_log.ts";
import { fitsIn, type ImportedLine } from "./events.ts";

const CHANNEL = /^[#&+!]/;
const DAY_FILE = /^(\d{4})-(\d{2})-(\d{2})\.log$/;
/** One list for every line: the highlight check keeps its compiled pattern while it is the same. */
const NO_KEYWORDS: string[] = [];

/** Options of the ZNC import. */
interface ZncOptions {
  /** Makes NAME@domain for users without an explicit address. */
  domain?: string;
  /** Explicit addresses by ZNC user name. */
  emails: Map<string, string>;
  /** The zone of users without a `Timezone` (ZNC then wrote its own machine's local time). */
  timezone?: string;
}

/** The words of a `LoadModule` line, quotes grouping as ZNC's QuoteSplit does. */
function words(text: string): string[] {
  return [...text.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);
}

/** The arguments of `module` when the block loads it, else undefined. */
function moduleArgs(b: ZncBlock, module: string): string[] | undefined {
  for (const line of values(b, "LoadModule")) {
    const [name, ...args] = words(line);
    if (name?.toLowerCase() === module) return args;
  }
  return undefined;
}

/** What the log module's arguments say of its lines. */
function logSettings(args: string[] | undefined): { format: string; customPath: boolean } {
  let format = "[%H:%M:%S]";
  let customPath = false;
  for (let i = 0; i < (args?.length ?? 0); i++) {
    const a = args![i];
    if (a.toLowerCase() === "-timestamp") format = args![++i] ?? format;
    else if (a.toLowerCase() !== "-sanitize") customPath = true;
  }
  return { format, customPath };
}

/**
 * Builds a Parley connection URL from a ZNC network (the first of its servers).
 *
 * @internal test seam
 */
export function zncNetworkUrl(
  server: string,
  who: { nick: string; ident: string; realname: string },
  opts: { trustAllCerts: boolean; sasl?: { user: string; password: string; external: boolean } },
): string {
  const [host = "", portWord = "", ...rest] = server.trim().split(/\s+/);
  const tls = portWord.startsWith("+");
  const port = Number(portWord.replace(/^\+/, "")) || 6667;
  const url = new URL(`${tls ? "ircs" : "irc"}://${host || "invalid"}`);
  url.port = String(port);
  const pass = rest.join(" ");
  if (opts.sasl?.password && !opts.sasl.external) {
    url.username = encodeURIComponent(opts.sasl.user || who.nick);
    url.password = encodeURIComponent(opts.sasl.password);
    url.searchParams.set("sasl", "plain");
  } else {
    if (opts.sasl?.external) url.searchParams.set("sasl", "external");
    if (pass) url.password = encodeURIComponent(pass);
  }
  if (who.nick) url.searchParams.set("nick", who.nick);
  if (who.ident && who.ident !== who.nick) url.searchParams.set("username", who.ident);
  if (who.realname) url.searchParams.set("realname", who.realname);
  if (tls && opts.trustAllCerts) url.searchParams.set("tls_verify", "0");
  return url.href;
}

/** One day's log of a window, with how its lines start. */
interface DayLog {
  path: string;
  /** The date's midnight as if it were UTC. */
  day: number;
  format: TimestampFormat;
}

/** Imports every user of a ZNC data folder. */
export async function importZnc(
  session: ImportSession,
  folder: SourceFolder,
  opts: ZncOptions,
): Promise<void> {
  const dir = folder.root;
  const confPath = join(dir, "configs", "znc.conf");
  if (!(await folder.inside(confPath))) {
    throw new ConfigError(`${dir} is not a ZNC data folder (no configs/znc.conf in it)`);
  }
  const conf = await readZncConf(confPath);
  const users = blocks(conf, "User");
  if (!users.length) throw fileError(confPath, "it has no <User> blocks");
  const names = users.map(([name]) => name);
  const emails = new Map<string, string>();
  for (const name of names) {
    const given = opts.emails.get(name);
    if (!given && !opts.domain) {
      throw new ConfigError(
        `ZNC user "${name}" has no email: pass --domain example.org or --email ${name}=ADDRESS`,
      );
    }
    emails.set(name, checkEmail(given ?? `${name}@${opts.domain}`, `ZNC user "${name}"`));
  }
  for (const name of [...opts.emails.keys()].filter((n) => !names.includes(n))) {
    throw new ConfigError(`--email ${name}=...: znc.conf has no user "${name}"`);
  }
  // Every zone first, so a wrong one stops the import before anything is written.
  const zones = new Map<string, LocalTime>();
  const fallback = opts.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  for (const [name, u] of users) {
    const zone = value(u, "Timezone") || fallback;
    try {
      zones.set(name, new LocalTime(zone));
    } catch (err) {
      throw fileError(confPath, `user "${name}": ${(err as Error).message}`);
    }
  }
  await session.refuseExisting(emails.values());
  const globalLog = logSettings(moduleArgs(conf, "log"));

  for (const [name, u] of users) {
    const user = await session.user(emails.get(name)!, truthy(value(u, "Admin")) ? ["admin"] : []);
    const userLog = logSettings(moduleArgs(u, "log"));
    for (const [netName, n] of blocks(u, "Network")) {
      // Without a Nick ZNC uses the user name, which may hold what no nick does (`.`, `@`).
      const nick = value(n, "Nick") || value(u, "Nick") || nickFromEmail(`${name}@`);
      const who = {
        nick,
        ident: value(n, "Ident") || value(u, "Ident") || name.replace(/[\s@]/g, "_"),
        realname: value(n, "RealName") || value(u, "RealName"),
      };
      const netDir = join(dir, "users", name, "networks", netName);
      // The sasl module (a network module) keeps its account in its registry.
      let sasl;
      if (moduleArgs(n, "sasl") !== undefined) {
        const registry = join(netDir, "moddata", "sasl", ".registry");
        const nv = await folder.inside(registry) ? await readRegistry(registry) : new Map();
        sasl = {
          user: nv.get("username") ?? "",
          password: nv.get("password") ?? "",
          external: (nv.get("mechanisms") ?? "").toUpperCase().split(/\s+/)[0] === "EXTERNAL",
        };
      }
      const servers = values(n, "Server");
      if (!servers.length) throw fileError(confPath, `network "${netName}" has no Server`);
      const channels = blocks(n, "Chan");
      const connection = await session.connection(user.id, {
        name: netName,
        url: zncNetworkUrl(servers[0], who, {
          trustAllCerts: truthy(value(n, "TrustAllCerts")),
          sasl,
        }),
        onConnectCommands: [],
        wantedState: value(n, "IRCConnectEnabled") && !truthy(value(n, "IRCConnectEnabled"))
          ? "disconnected"
          : "connected",
      }, confPath);
      const spelled = new Map<string, string>();
      for (const [chan, c] of channels) {
        spelled.set(ircLower(chan), chan);
        await session.conversation(connection.id, chan, {
          joined: !truthy(value(c, "Disabled")),
          key: value(c, "Key"),
        });
      }
      const netLog = logSettings(moduleArgs(n, "log"));
      for (const [b, where] of [[conf, "global"], [u, name], [n, netName]] as const) {
        if (logSettings(moduleArgs(b, "log")).customPath) {
          console.error(
            `note: the ${where} log module writes to its own path; only ZNC's default layout is read`,
          );
        }
      }
      const logDirs: [string, string][] = [
        [join(dir, "moddata", "log", name, netName), globalLog.format],
        [join(dir, "users", name, "moddata", "log", netName), userLog.format],
        [join(netDir, "moddata", "log"), netLog.format],
      ];
      const windows = new Map<string, DayLog[]>();
      for (const [logDir, format] of logDirs) {
        if (!(await folder.inside(logDir))) continue;
        let reader: TimestampFormat;
        try {
          reader = timestampFormat(format);
        } catch (err) {
          throw fileError(confPath, `network "${netName}": ${(err as Error).message}`);
        }
        for (const w of await folder.list(logDir)) {
          if (!w.isDirectory) continue;
          for (const f of await folder.list(w.path)) {
            const m = DAY_FILE.exec(f.name);
            if (!f.isFile || !m) continue;
            const list = windows.get(w.name) ?? [];
            list.push({ path: f.path, day: Date.UTC(+m[1], +m[2] - 1, +m[3]), format: reader });
            windows.set(w.name, list);
          }
        }
      }
      for (const [window, days] of windows) {
        // The status window holds ZNC's own lines (connected, disconnected, broadcasts).
        if (window === "status" || window.startsWith("*")) continue;
        const convName = spelled.get(ircLower(window)) ?? window;
        const conversation = await session.conversation(connection.id, convName);
        await importDays(session, days, {
          conversation: conversation.id,
          userId: user.id,
          nick,
          isPrivate: !CHANNEL.test(convName),
          zone: zones.get(name)!,
        });
      }
    }
  }
}

/** Where a window's lines go, and what decides their highlight. */
interface Target {
  conversation: number;
  userId: number;
  nick: string;
  isPrivate: boolean;
  zone: LocalTime;
}

/**
 * A message or channel event line of a day log: its local date (midnight as if UTC), time of day
 * and what it says.
 *
 * @internal test seam
 */
export type DayLine = ImportedLine & { day: number; seconds: number };

/**
 * A log line read as a message or channel event; a line that is neither (a status line, a
 * malformed event, too long) is counted.
 */
function readDayLine(session: ImportSession, line: Line, log: DayLog): DayLine | undefined {
  const stamp = "text" in line ? log.format.read(line.text) : undefined;
  const message = stamp && parseLogLine(stamp.rest);
  if (!stamp || !message) {
    if (!("text" in line) || line.text.trim()) session.summary.skipped++;
    return undefined;
  }
  const day = stamp.date ? Date.UTC(stamp.date[0], stamp.date[1] - 1, stamp.date[2]) : log.day;
  return { day, seconds: stamp.seconds, ...message };
}

/** Runs `read` on a log file's stream; errors name the file. */
async function reading(path: string, read: (s: ReadableStream<Uint8Array>) => Promise<void>) {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path);
  } catch (err) {
    throw fileError(path, err);
  }
  try {
    await read(file.readable);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw fileError(path, err);
  }
}

/** The message and event lines of one day log as they stream in (to merge a day's files). */
async function* messagesOf(session: ImportSession, log: DayLog): AsyncGenerator<DayLine> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(log.path);
  } catch (err) {
    throw fileError(log.path, err);
  }
  try {
    for await (const line of readLines(file.readable)) {
      const l = readDayLine(session, line, log);
      if (l) yield l;
    }
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw fileError(log.path, err);
  }
}

const order = (l: DayLine) => l.day / 1000 + l.seconds;
/** A text as the log module's `-sanitize` writes it: without colours and other control codes. */
function sanitized(text: string): string {
  // deno-lint-ignore no-control-regex -- control codes are what it removes
  return text.replace(/\x03(\d{1,2}(,\d{1,2})?)?/g, "").replace(/[\x00-\x1f\x7f]/g, "");
}
/** What a line says: a message's text, an event's fields (a reason, a topic) one per line. */
const said = (l: DayLine) =>
  l.fields === undefined ? l.text : Object.values(JSON.parse(l.fields)).join("\n");
/**
 * One line as two log files have it: each module stamps the line when it writes it, so across a
 * second's boundary the same line carries two seconds.
 */
function same(a: DayLine, b: DayLine): boolean {
  if (Math.abs(order(a) - order(b)) > 1 || a.type !== b.type || a.from !== b.from) return false;
  if (a.text === b.text && a.fields === b.fields) return true;
  const [x, y] = [said(a), said(b)];
  return x === y || sanitized(x) === sanitized(y);
}

/**
 * The lines of one day logged in several files (the log module loaded at two levels), merged in
 * time order as they stream; a line both files have comes once, with its formatting when one
 * of them was written `-sanitize`d.
 *
 * @internal test seam
 */
export async function* mergedDay(sources: AsyncGenerator<DayLine>[]): AsyncGenerator<DayLine> {
  const heads = await Promise.all(sources.map((s) => s.next()));
  for (;;) {
    let best: DayLine | undefined;
    for (const h of heads) if (!h.done && (!best || order(h.value) < order(best))) best = h.value;
    if (!best) return;
    const first = best;
    for (const h of heads) {
      if (!h.done && same(h.value, first) && said(h.value).length > said(best).length) {
        best = h.value;
      }
    }
    yield best;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i];
      if (!h.done && same(h.value, first)) heads[i] = await sources[i].next();
    }
  }
}

/**
 * Streams day logs of one window (ZNC's and soju's fs format) into a conversation, oldest day
 * first: messages and channel events (a join, a kick... in a channel's window only; a quit or a
 * nick change in a private one too, as Parley keeps them).
 */
export async function importDays(
  session: ImportSession,
  days: { path: string; day: number; format?: TimestampFormat }[],
  to: Target,
): Promise<void> {
  const self = ircLower(to.nick);
  let previous = -Infinity;
  const where = to.isPrivate ? "private" : "channel";
  const store = (line: DayLine) => {
    if (!fitsIn(line, where)) {
      session.summary.skipped++;
      return;
    }
    const ms = to.zone.toUtc(line.day, line.seconds, previous);
    previous = ms;
    session.message({
      conversation: to.conversation,
      userId: to.userId,
      ts: ms * 1000,
      type: line.type,
      from: line.from,
      text: line.text,
      fields: line.fields,
      // As Parley records them: mentions, and every private message from someone else; an event
      // never.
      highlight: line.fields === undefined && ircLower(line.from) !== self &&
        isHighlight({
          text: line.text,
          nick: to.nick,
          keywords: NO_KEYWORDS,
          isPrivate: to.isPrivate,
        }),
    });
  };
  const fallback = timestampFormat();
  const sorted = days.map((d) => ({ path: d.path, day: d.day, format: d.format ?? fallback }))
    .sort((a, b) => a.day - b.day);
  for (let i = 0; i < sorted.length;) {
    let j = i + 1;
    while (j < sorted.length && sorted[j].day === sorted[i].day) j++;
    const logs = sorted.slice(i, j);
    i = j;
    if (logs.length === 1) {
      // The usual case, read without a generator in between: every line of a large import.
      await reading(logs[0].path, async (stream) => {
        for await (const line of readLines(stream)) {
          const l = readDayLine(session, line, logs[0]);
          if (l) store(l);
        }
      });
    } else {
      for await (const line of mergedDay(logs.map((l) => messagesOf(session, l)))) store(line);
    }
  }
}
