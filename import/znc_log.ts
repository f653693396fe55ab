/**
 * ZNC's log format, which soju's `fs` message store writes too: one file per window and local
 * day (`YYYY-MM-DD.log`), each line a local time `[HH:MM:SS]` and then `<nick> text`,
 * `-nick- text` (notice), `* nick text` (action), or a channel event after `*** `: `Joins: nick
 * (ident@host)`, `Parts: nick (ident@host) (reason)`, `Quits: nick (ident@host) (reason)`, `nick
 * was kicked by op (reason)`, `old is now known as new`, `nick changes topic to 'topic'`,
 * `nick sets mode: +o bob` (ZNC's modules/log.cpp, soju's msgstore/znclog). ZNC writes the time
 * in its user's `Timezone`, soju in its process's.
 */
import { ConfigError } from "../config.ts";
import type { KeptKind } from "../protocol/events.ts";
import { importedEvent, type ImportedLine } from "./events.ts";

/**
 * Reads a line's message or channel event (what follows the timestamp and its space); undefined
 * for status lines (connects, broadcasts), any other `***` line, and a malformed one.
 */
export function parseLogLine(message: string): ImportedLine | undefined {
  const c = message.charCodeAt(0);
  if (c === 0x3c /* < */) {
    const end = message.indexOf("> ");
    const bare = end === -1 && message.endsWith(">") ? message.length - 1 : -1;
    const close = end !== -1 ? end : bare;
    if (close < 2 || message.lastIndexOf(" ", close) !== -1) return undefined;
    return { type: "private", from: message.slice(1, close), text: message.slice(close + 2) };
  }
  if (c === 0x2d /* - */) {
    const end = message.indexOf("- ", 1);
    if (end < 2 || message.lastIndexOf(" ", end) !== -1) return undefined;
    return { type: "notice", from: message.slice(1, end), text: message.slice(end + 2) };
  }
  if (message.startsWith("*** ")) return logEvent(message.slice(4));
  if (message.startsWith("* ")) {
    const end = message.indexOf(" ", 2);
    const from = end === -1 ? message.slice(2) : message.slice(2, end);
    if (!from || from === "*" || from.startsWith("**")) return undefined;
    return { type: "action", from, text: end === -1 ? "" : message.slice(end + 1) };
  }
  return undefined;
}

/**
 * A person's entry, part or quit: the nick, the `(ident@host)` (no spaces in it), and for a part
 * or quit the reason in brackets, which may hold brackets itself (the last one closes it).
 */
const PRESENCE = /^(Joins|Parts|Quits): (\S+) \(\S*\)(?: \((.*)\))?$/s;
/** The other events, each after the nick of who it concerns. */
const KICKED = /^(\S+) was kicked by (\S+) \((.*)\)$/s;
const NICK = /^(\S+) is now known as (\S+)$/;
/** The topic between the first quote and the last: it may hold quotes. */
const TOPIC = /^(\S+) changes topic to '(.*)'$/s;
const MODE = /^(\S+) sets mode: (.*)$/s;

/** The events of `Joins:`, `Parts:` and `Quits:` lines. */
const PRESENCE_KIND: Record<string, KeptKind> = { Joins: "join", Parts: "part", Quits: "quit" };

/** A `***` line's channel event (what follows `*** `), or undefined when it is none or malformed. */
function logEvent(rest: string): ImportedLine | undefined {
  let m = PRESENCE.exec(rest);
  if (m) {
    const kind = PRESENCE_KIND[m[1]];
    // A join has no reason: one written after it is not ZNC's.
    if (kind === "join") {
      return m[3] === undefined ? importedEvent(kind, { nick: m[2] }) : undefined;
    }
    return importedEvent(kind, { nick: m[2], message: m[3] ?? "" });
  }
  if ((m = KICKED.exec(rest))) {
    return importedEvent("kick", { nick: m[1], kicker: m[2], message: m[3] });
  }
  if ((m = NICK.exec(rest))) {
    return importedEvent("nick_change", { old_nick: m[1], new_nick: m[2] });
  }
  if ((m = TOPIC.exec(rest))) return importedEvent("topic", { nick: m[1], topic: m[2] });
  // ZNC also writes the modes a channel has when it joins (the server's answer to its MODE
  // query) as set by "Server": that is no change, and Parley keeps none for it.
  if ((m = MODE.exec(rest)) && m[1] !== "Server") {
    return importedEvent("mode", { nick: m[1], mode: m[2] });
  }
  return undefined;
}

/**
 * How a log line starts: ZNC's log module takes `-timestamp FORMAT` (strftime; `[%H:%M:%S]`
 * unless given). The fields that give a time are read, other letters must match as written.
 */
export interface TimestampFormat {
  /** Reads the time of day (seconds) and, when the format has one, the date; undefined if the line does not start so. */
  read(
    line: string,
  ): { seconds: number; date?: [number, number, number]; rest: string } | undefined;
}

const FIELDS: Record<string, { re: string; set: string[] }> = {
  H: { re: "(\\d{2})", set: ["H"] },
  M: { re: "(\\d{2})", set: ["M"] },
  S: { re: "(\\d{2})", set: ["S"] },
  T: { re: "(\\d{2}):(\\d{2}):(\\d{2})", set: ["H", "M", "S"] },
  R: { re: "(\\d{2}):(\\d{2})", set: ["H", "M"] },
  Y: { re: "(\\d{4})", set: ["Y"] },
  m: { re: "(\\d{2})", set: ["m"] },
  d: { re: "(\\d{2})", set: ["d"] },
  F: { re: "(\\d{4})-(\\d{2})-(\\d{2})", set: ["Y", "m", "d"] },
  y: { re: "(\\d{2})", set: ["y"] },
};

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The default `[%H:%M:%S]`, read without a regular expression (it is every line of a large import). */
const DEFAULT: TimestampFormat = {
  read(line) {
    if (
      line.length < 11 || line.charCodeAt(0) !== 0x5b || line.charCodeAt(3) !== 0x3a ||
      line.charCodeAt(6) !== 0x3a || line.charCodeAt(9) !== 0x5d || line.charCodeAt(10) !== 0x20
    ) return undefined;
    const h = two(line, 1), m = two(line, 4), s = two(line, 7);
    if (h < 0 || m < 0 || s < 0) return undefined;
    return { seconds: h * 3600 + m * 60 + s, rest: line.slice(11) };
  },
};

function two(s: string, at: number): number {
  const a = s.charCodeAt(at) - 48, b = s.charCodeAt(at + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * The reader of a strftime format, or an error naming what it cannot read (a format without
 * hours and minutes gives no time to import).
 */
export function timestampFormat(format = "[%H:%M:%S]"): TimestampFormat {
  if (format === "[%H:%M:%S]") return DEFAULT;
  let re = "^";
  const order: string[] = [];
  for (let i = 0; i < format.length; i++) {
    const ch = format[i];
    if (ch !== "%") {
      re += escape(ch);
      continue;
    }
    const spec = format[++i];
    if (spec === "%") {
      re += "%";
      continue;
    }
    const field = FIELDS[spec];
    if (!field) {
      throw new ConfigError(`the log timestamp format uses %${spec}, which the import cannot read`);
    }
    re += field.re;
    order.push(...field.set);
  }
  if (!order.includes("H") || !order.includes("M")) {
    throw new ConfigError("the log timestamp format has no hours and minutes (%H:%M)");
  }
  const compiled = new RegExp(re + " ");
  return {
    read(line) {
      const m = compiled.exec(line);
      if (!m) return undefined;
      const v: Record<string, number> = {};
      order.forEach((k, i) => (v[k] = Number(m[i + 1])));
      const year = v.Y ?? (v.y !== undefined ? 2000 + v.y : undefined);
      return {
        seconds: v.H * 3600 + v.M * 60 + (v.S ?? 0),
        date: year !== undefined && v.m && v.d ? [year, v.m, v.d] : undefined,
        rest: line.slice(m[0].length),
      };
    },
  };
}

/**
 * Local times of one IANA time zone turned into UTC. A day's offsets are looked up once; on a
 * day the clocks change, each time is checked, and a time that happens twice (the hour repeated
 * in autumn) is placed after the line before it, as the log was written in order.
 */
export class LocalTime {
  readonly #format: Intl.DateTimeFormat;
  /** Offsets at the start and end of the day last asked for, by its UTC midnight. */
  #day = NaN;
  #startOffset = 0;
  #endOffset = 0;

  /** Throws a ConfigError when the zone is unknown. */
  constructor(readonly zone: string) {
    try {
      this.#format = new Intl.DateTimeFormat("en-US", {
        timeZone: zone,
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
      });
    } catch {
      throw new ConfigError(`unknown time zone "${zone.slice(0, 64)}"`);
    }
  }

  /** The zone's offset from UTC at instant `ms`, in ms. */
  offset(ms: number): number {
    const p: Record<string, number> = {};
    for (const part of this.#format.formatToParts(ms)) {
      if (part.type !== "literal") p[part.type] = Number(part.value);
    }
    const local = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
    return local - Math.floor(ms / 1000) * 1000;
  }

  /**
   * Milliseconds since the epoch of a local time: `day` is the local date's midnight as if it
   * were UTC (Date.UTC(y, m - 1, d)), `seconds` the time of day; `after` the previous line's.
   */
  toUtc(day: number, seconds: number, after = -Infinity): number {
    if (day !== this.#day) {
      this.#day = day;
      this.#startOffset = this.offset(day - this.offset(day));
      this.#endOffset = this.offset(day + 86_400_000 - this.offset(day + 86_400_000));
    }
    const local = day + seconds * 1000;
    if (this.#startOffset === this.#endOffset) return local - this.#startOffset;
    const valid = [local - this.#startOffset, local - this.#endOffset]
      .filter((t) => local - t === this.offset(t))
      .sort((a, b) => a - b);
    // In the spring gap no local time exists: it was written just after the change.
    if (!valid.length) return local - this.#startOffset;
    return valid.find((t) => t >= after) ?? valid[valid.length - 1];
  }
}
