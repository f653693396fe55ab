/** Display choices kept in this browser: compact layout, 24-hour clock, seconds, joins and parts. */
import { signal } from "@preact/signals";
import type { JoinPartMode } from "./event_runs.ts";

const read = (name: string, fallback: boolean) => {
  const v = localStorage.getItem(`parley.${name}`);
  return v === null ? fallback : v === "on";
};

/** One line per message with a fixed nick column, as classic IRC clients show them. */
export const compact = signal(read("compact", false));
/** Times as 14:05 rather than 2:05 PM, whatever the language. */
export const clock24 = signal(read("clock24", true));
/** Times with seconds. */
export const seconds = signal(read("seconds", false));

/** Joins, parts, quits and nick changes: each shown, runs collapsed (the default), or hidden. */
export const joinParts = signal<JoinPartMode>(
  (["show", "condense", "hide"] as const).find((m) =>
    m === localStorage.getItem("parley.joinParts")
  ) ?? "condense",
);

/** Saves how joins and parts are shown. */
export function setJoinParts(mode: JoinPartMode): void {
  localStorage.setItem("parley.joinParts", mode);
  joinParts.value = mode;
}

/** Saves a choice and applies it at once. */
export function setPref(name: "compact" | "clock24" | "seconds", on: boolean): void {
  localStorage.setItem(`parley.${name}`, on ? "on" : "off");
  ({ compact, clock24, seconds })[name].value = on;
}

// Building an Intl formatter is slow (far slower than formatting): one per set of choices.
const formats = new Map<string, Intl.DateTimeFormat>();

/** A cached formatter for `lang` and `opts`. */
export function formatter(lang: string, opts: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const k = lang + JSON.stringify(opts);
  let f = formats.get(k);
  if (!f) formats.set(k, f = new Intl.DateTimeFormat(lang, opts));
  return f;
}

/** The time of day of `ts` as the choices above say. */
export function timeOf(ts: string, lang: string): string {
  return formatter(lang, {
    hour: "2-digit",
    minute: "2-digit",
    second: seconds.value ? "2-digit" : undefined,
    hourCycle: clock24.value ? "h23" : "h12",
  }).format(new Date(ts));
}

/** Date and time of `ts`, for a tooltip, with the clock chosen above. */
export function dateTimeOf(ts: string, lang: string): string {
  return formatter(lang, {
    dateStyle: "medium",
    timeStyle: "medium",
    hourCycle: clock24.value ? "h23" : "h12",
  }).format(new Date(ts));
}

/** The day and time of `ts` for lists (notifications, search), with the clock chosen above. */
export function dayTimeOf(ts: string, lang: string): string {
  return formatter(lang, { dateStyle: "medium" }).format(new Date(ts)) + " " + timeOf(ts, lang);
}
