/**
 * Leveled logger: one line per event, never secrets (callers pass none).
 *
 * - `logfmt` (the default): `TIME LEVEL message key=value ...`, each value quoted and escaped when
 *   it holds a space, a quote, `=` or a control character, so that a line splits into fields and an
 *   error's stack is one field on one line;
 * - `json` (`PARLEY_LOG_FORMAT=json`): one JSON object per line, `time`, `level`, `msg` and the
 *   fields.
 *
 * Under systemd (`JOURNAL_STREAM` names the stream stderr is) each line starts with its syslog
 * priority, `<3>` to `<7>`, which journald takes as the entry's priority and strips.
 */
import { fstatSync } from "node:fs";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFormat = "logfmt" | "json";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
/** syslog priorities (sd-daemon(3)): err, warning, info, debug. */
const PRIORITY: Record<LogLevel, number> = { debug: 7, info: 6, warn: 4, error: 3 };
let threshold: number = ORDER.info;
let format: LogFormat = "logfmt";
let journal = false;
// Commands other than the daemon keep stdout for their output (lists, links).
let allToStderr = false;

/** Sends every level to stderr (commands whose stdout is their output). */
export function logToStderr(): void {
  allToStderr = true;
}

/** Sets the lowest level that is written. */
export function setLogLevel(level: LogLevel): void {
  threshold = ORDER[level];
}

/**
 * Sets how lines are written.
 *
 * @internal test seam
 */
export function setLogFormat(to: LogFormat): void {
  format = to;
}

/**
 * Starts (or stops) each line with its syslog priority, for journald.
 *
 * @internal test seam
 */
export function setJournalPrefix(on: boolean): void {
  journal = on;
}

/** Applies the configuration's level and format; under journald, lines carry priorities. */
export function configureLog(
  config: { logLevel: LogLevel; logFormat: LogFormat },
  journalStream: string | undefined,
): void {
  setLogLevel(config.logLevel);
  setLogFormat(config.logFormat);
  setJournalPrefix(stderrIsJournal(journalStream));
}

/**
 * Whether stderr is the journal stream systemd gave this process: `JOURNAL_STREAM` is
 * `device:inode` of that stream, and holds only while stderr is still it (not redirected by a
 * wrapper script), as sd-daemon(3) says to check.
 *
 * @internal test seam
 */
export function stderrIsJournal(journalStream: string | undefined): boolean {
  const m = /^(\d+):(\d+)$/.exec(journalStream ?? "");
  if (!m) return false;
  try {
    const stat = fstatSync(2);
    return stat.dev === Number(m[1]) && stat.ino === Number(m[2]);
  } catch {
    return false;
  }
}

// deno-lint-ignore no-control-regex -- control characters are what must be escaped
const NEEDS_QUOTES = /[\s"=\\\x00-\x1f\x7f]/;
// deno-lint-ignore no-control-regex -- as above
const ESCAPED = /["\\\x00-\x1f\x7f]/g;

/**
 * A logfmt value: bare when it can be, else quoted with `\"`, `\\`, `\n`, `\t`, `\uXXXX`.
 *
 * @internal test seam
 */
export function logfmtValue(text: string): string {
  if (text !== "" && !NEEDS_QUOTES.test(text)) return text;
  return `"${
    text.replace(ESCAPED, (ch) => {
      switch (ch) {
        case '"':
          return '\\"';
        case "\\":
          return "\\\\";
        case "\n":
          return "\\n";
        case "\r":
          return "\\r";
        case "\t":
          return "\\t";
        default:
          return `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
      }
    })
  }"`;
}

/** A field's value as text: an error's stack (or message), a string as is, the rest as JSON. */
function fieldText(v: unknown): string {
  if (v instanceof Error) return v.stack ?? `${v.name}: ${v.message}`;
  if (typeof v === "string") return v;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v); // a cycle
  }
}

/** A field's value for a JSON line: an error as its stack, everything else as it is. */
function jsonValue(v: unknown): unknown {
  return v instanceof Error ? (v.stack ?? `${v.name}: ${v.message}`) : v;
}

/**
 * The line for one event, without the journal prefix.
 *
 * @internal test seam
 */
export function formatLine(
  level: LogLevel,
  msg: string,
  fields: Record<string, unknown> | undefined,
  as: LogFormat,
  time: Date = new Date(),
): string {
  if (as === "json") {
    const record: Record<string, unknown> = { time: time.toISOString(), level, msg };
    for (const [k, v] of Object.entries(fields ?? {})) {
      if (v !== undefined) record[k] = jsonValue(v);
    }
    try {
      return JSON.stringify(record);
    } catch {
      // A value JSON cannot hold (a cycle, a bigint): its text, as logfmt would write it.
      for (const k of Object.keys(record)) record[k] = fieldText(record[k]);
      return JSON.stringify(record);
    }
  }
  let line = `${time.toISOString()} ${level.toUpperCase()} ${msg.replace(/[\r\n]+/g, " ")}`;
  for (const [k, v] of Object.entries(fields ?? {})) {
    if (v !== undefined) line += ` ${k}=${logfmtValue(fieldText(v))}`;
  }
  return line;
}

function write(level: LogLevel, msg: string, fields?: Record<string, unknown>): void {
  if (ORDER[level] < threshold) return;
  let line = formatLine(level, msg, fields, format);
  if (journal) line = `<${PRIORITY[level]}>${line}`;
  (allToStderr || level === "error" || level === "warn" ? console.error : console.log)(line);
}

/** The process-wide logger. */
export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write("error", msg, fields),
};
