/** Display choices kept in this browser: compact layout, 24-hour clock, seconds. */
import { signal } from "@preact/signals";

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

/** Saves a choice and applies it at once. */
export function setPref(name: "compact" | "clock24" | "seconds", on: boolean): void {
  localStorage.setItem(`parley.${name}`, on ? "on" : "off");
  ({ compact, clock24, seconds })[name].value = on;
}

/** The time of day of `ts` as the choices above say. */
export function timeOf(ts: string, lang: string): string {
  return new Date(ts).toLocaleTimeString(lang, {
    hour: "2-digit",
    minute: "2-digit",
    second: seconds.value ? "2-digit" : undefined,
    hourCycle: clock24.value ? "h23" : "h12",
  });
}
