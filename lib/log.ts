/** Leveled logger: one line per event, `key=value` fields, never secrets (callers pass none). */
export type LogLevel = "debug" | "info" | "warn" | "error";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
let threshold: number = ORDER.info;
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

function write(level: LogLevel, msg: string, fields?: Record<string, unknown>): void {
  if (ORDER[level] < threshold) return;
  let line = `${new Date().toISOString()} ${level.toUpperCase()} ${msg}`;
  for (const [k, v] of Object.entries(fields ?? {})) {
    const text = v instanceof Error
      ? (v.stack ?? v.message)
      : typeof v === "string"
      ? v
      : JSON.stringify(v);
    line += ` ${k}=${text}`;
  }
  (allToStderr || level === "error" || level === "warn" ? console.error : console.log)(line);
}

/** The process-wide logger. */
export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write("error", msg, fields),
};
