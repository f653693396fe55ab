/**
 * Channel events of another program's history (joins, parts, kicks, quits, nick changes, topic
 * changes, channel modes) as Parley keeps its own: the row's sender is who did it, its `fields`
 * the rest as JSON (store/event_fields.ts), its text empty, and it is never a highlight. Every
 * importer turns what it read into a stored line here, so the checks are the same for all: a
 * field missing or of the wrong kind, or a nick that is no nick, makes the event malformed (the
 * importer skips and counts it), and nothing a crafted log holds is kept longer than the bounds.
 */
import type { ChatType, KeptFields, KeptKind } from "../protocol/events.ts";
import { storedFields } from "../store/event_fields.ts";

/** A line as the importer stores it: a message, or a channel event with its fields' JSON. */
export type ImportedLine =
  | { type: ChatType; from: string; text: string; fields?: undefined }
  | { type: KeptKind; from: string; text: ""; fields: string };

/** The longest nick kept, as the longest sender of any row. */
const MAX_NICK = 100;
/** The longest reason, topic or mode kept: storedFields' bound, cut here between characters. */
const MAX_TEXT = 1000;

/** The fields of each kind that hold a nick (who did it, or whom it was done to). */
const NICKS: { readonly [K in KeptKind]: readonly (keyof KeptFields<K>)[] } = {
  join: ["nick"],
  part: ["nick"],
  kick: ["nick", "kicker"],
  quit: ["nick"],
  nick_change: ["old_nick", "new_nick"],
  topic: ["nick"],
  mode: ["nick"],
};

/** The text a topic change or a mode needs: a topic may be empty (cleared), a mode may not. */
const TEXT: { readonly [K in KeptKind]?: string } = { topic: "topic", mode: "mode" };

/** A nick: a word without spaces or control codes. */
// deno-lint-ignore no-control-regex -- control codes are what it refuses
const NICK = /^[^\s\x00-\x1f\x7f]+$/;

/** `text` cut to `max` UTF-16 units, never between the halves of a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/**
 * A channel event of kind `kind` as the importer stores it, or undefined when it is malformed: a
 * nick missing, empty or not a word, a topic or mode that is not text, a mode without modes.
 * Nicks are cut at 100 characters, reasons, topics and modes at 1,000 (storedFields' bounds); an
 * empty reason is left out, as Parley leaves out the reason of a live part, kick or quit without
 * one.
 */
export function importedEvent<K extends KeptKind>(
  kind: K,
  fields: { [F in keyof KeptFields<K>]?: unknown },
): ImportedLine | undefined {
  const given = fields as Record<string, unknown>;
  const kept: Record<string, string> = {};
  for (const name of NICKS[kind] as string[]) {
    const nick = given[name];
    if (typeof nick !== "string" || !NICK.test(nick)) return undefined;
    kept[name] = cut(nick, MAX_NICK);
  }
  const text = TEXT[kind];
  if (text !== undefined) {
    const value = given[text];
    if (typeof value !== "string") return undefined;
    const words = kind === "mode" ? value.trim() : value;
    if (kind === "mode" && !words) return undefined;
    kept[text] = cut(words, MAX_TEXT);
  }
  const reason = given.message;
  if (kind === "part" || kind === "kick" || kind === "quit") {
    if (reason !== undefined && typeof reason !== "string") return undefined;
    if (reason) kept.message = cut(reason, MAX_TEXT);
  }
  const row = storedFields(kind, kept as KeptFields<K>);
  return { type: kind, from: row.from, text: "", fields: row.fields };
}

/** Kinds kept in a private conversation too (with that person), as Parley keeps them live. */
const ANYWHERE: ReadonlySet<string> = new Set<KeptKind>(["quit", "nick_change"]);

/**
 * Whether a line belongs in a conversation of this kind: a message anywhere; a quit or a nick
 * change in a channel or a private conversation; the other events in a channel only. Never an
 * event in the server's conversation: Parley keeps none there.
 */
export function fitsIn(line: ImportedLine, where: "channel" | "private" | "server"): boolean {
  if (line.fields === undefined) return true;
  return where === "channel" || (where === "private" && ANYWHERE.has(line.type));
}
