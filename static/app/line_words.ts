/**
 * A line's words (protocol/events.ts `Words`) filled from an event's fields and said in the reader's
 * language: the live line of a state event and a stored channel event's row (its `fields`) go
 * through here alike, so history shows what was shown live.
 */
import { LINE_KINDS, type MessageType, type Words } from "../../protocol/events.ts";
import { t } from "./i18n.ts";

/** The text of `w` with the fields `field` reads. */
export function sayWords(
  w: Words<Record<string, unknown>>,
  field: (name: string) => unknown,
): string {
  const vars = Object.fromEntries(
    Object.entries(w.fill).map(([name, from]) => [name, String(field(from) ?? "")]),
  );
  const reason = w.reason && field(w.reason);
  return t(w.say, vars) + (reason ? ` (${reason})` : "");
}

/** A stored row's line from its fields; undefined when its kind has no words (or no fields). */
export function storedLine(
  type: MessageType | undefined,
  fields: Readonly<Record<string, string | undefined>> | undefined,
): string | undefined {
  if (!type || !fields) return undefined;
  const kind = LINE_KINDS[type];
  if (!kind || !("line" in kind) || kind.line === "stored") return undefined;
  return sayWords(kind.line, (name) => fields[name]);
}
