/**
 * The words of a CHATHISTORY or MARKREAD request read into times: `timestamp=` and `msgid=`
 * references, `*`, limits and targets. Everything here comes from a client and is checked.
 */
import { isChannel } from "../../lib/casefold.ts";
import { parseMsgid } from "../../lib/msgid.ts";
import { parseMicros } from "../../protocol/time.ts";

/** The latest millisecond a reference may name (the store's latest time, about 2255). */
const MAX_MS = Math.floor((Number.MAX_SAFE_INTEGER - 2 ** 40) / 1000);

/** A reference read: a millisecond, or a stored line's msgid (its conversation and millisecond). */
export type Ref =
  | { kind: "timestamp"; ms: number }
  | { kind: "msgid"; conversation: number; ms: number }
  | { kind: "latest" };

/** Why a word is no reference: not one at all, or a kind Parley does not know. */
type RefError = "invalid" | "reftype";

/** A `timestamp=` value: RFC 3339 in UTC, cut to the millisecond; undefined when it is none. */
export function parseTimestamp(value: string): number | undefined {
  if (value.length > 40 || !/Z$/i.test(value)) return undefined;
  const us = parseMicros(value);
  if (us === null || us < 0) return undefined;
  const ms = Math.floor(us / 1000);
  return ms <= MAX_MS ? ms : undefined;
}

/** Reads a reference word; `*` only where `star` allows it (LATEST). */
export function parseRef(w: string, star = false): Ref | RefError {
  if (w === "*") return star ? { kind: "latest" } : "invalid";
  const eq = w.indexOf("=");
  if (eq <= 0) return "invalid";
  const type = w.slice(0, eq);
  const value = w.slice(eq + 1);
  if (type === "timestamp") {
    const ms = parseTimestamp(value);
    return ms === undefined ? "invalid" : { kind: "timestamp", ms };
  }
  if (type === "msgid") {
    const id = parseMsgid(value);
    if (!id || id.ms > MAX_MS) return "invalid";
    return { kind: "msgid", ...id };
  }
  return "reftype";
}

/** A limit word: a positive integer, at most `max` (more is cut to it); undefined when none. */
export function parseLimit(w: string, max: number): number | undefined {
  if (!/^[0-9]{1,9}$/.test(w)) return undefined;
  const n = Number(w);
  return n > 0 ? Math.min(n, max) : undefined;
}

/**
 * Whether a word can name a conversation: one printable word of at most 200 characters that is
 * a channel name or a nick (no `*?!@`, not beginning with `$`, `:`, a channel type or a member
 * prefix), as the server allows them.
 */
export function isTargetWord(w: string): boolean {
  // deno-lint-ignore no-control-regex
  if (!/^[^\s,:\x00-\x1f\x7f][^\s,\x00-\x1f\x7f]{0,199}$/.test(w)) return false;
  return isChannel(w) || /^[^$*?!@#&+~%][^*?!@]*$/.test(w);
}

/** A word of the client's echoed in a reply: one word, no line breaks, bounded. */
export function echo(w: string | undefined): string {
  // deno-lint-ignore no-control-regex
  return (w ?? "").replace(/[\s\x00-\x1f\x7f:,]/g, "").slice(0, 64) || "*";
}
