/**
 * Channel events kept as data: a kept line's fields (protocol/events.ts `KeptFields`) as a row holds
 * them, and back. The row's `sender` holds the field its kind names `from` (who did it), the
 * `fields` column the others as JSON, and `text` stays empty: every sentence is made where it is
 * shown (the web client's dictionaries, Convos's words in the history API, the IRC line of the
 * bouncer), and channel events are never searched, so a copy in `text` would serve nobody.
 */
import {
  type KeptFields,
  type KeptKind,
  LINE_KINDS,
  type MessageType,
} from "../protocol/events.ts";

/** The longest field kept (a reason, a topic): more than any IRC line carries. */
const MAX_FIELD = 1000;

/** Longest sender, as for every message. */
const MAX_SENDER = 100;

/** Whether lines of `type` are kept as fields. */
function isKept(type: MessageType): type is KeptKind {
  return "from" in LINE_KINDS[type];
}

/** A kept line as its row holds it: the sender, and the JSON of the other fields. */
export function storedFields<K extends KeptKind>(
  kind: K,
  fields: KeptFields<K>,
): { from: string; fields: string } {
  const by: string = LINE_KINDS[kind].from;
  let from = "";
  const rest: Record<string, string> = {};
  let any = false;
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    if (name === by) from = String(value).slice(0, MAX_SENDER);
    else {
      rest[name] = String(value).slice(0, MAX_FIELD);
      any = true;
    }
  }
  // A join has nothing but its sender: most rows of a busy channel, so no JSON is made for them.
  return { from, fields: any ? JSON.stringify(rest) : "{}" };
}

/**
 * The fields of a stored row of `type`, its sender's among them; undefined for a row kept as
 * text: a kind not kept as data, or a row written before (whose sentence the migration could
 * not read), which is shown as its text says.
 */
export function keptFields(
  type: MessageType,
  sender: string,
  json: string | null | undefined,
): KeptFields | undefined {
  if (!json || !isKept(type)) return undefined;
  let parsed: unknown;
  try {
    parsed = json === "{}" ? {} : JSON.parse(json);
  } catch {
    return undefined; // not written by Parley: shown as its text
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return undefined;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value === "string") out[name] = value;
  }
  out[LINE_KINDS[type].from] = sender;
  return out as KeptFields;
}
