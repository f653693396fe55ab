/**
 * The history API's `message` of a channel event kept as data: the sentence Convos shows for it
 * ("bob joined.", "bob left: bye"), made from its fields where it is shown. The English words of
 * its line (protocol/events.ts) with the reason after a colon, or a full stop; a topic and a mode are
 * worded as Convos words them.
 */
import { type KeptFields, type KeptKind, LINE_KINDS } from "../protocol/events.ts";
import type { MessageJson } from "../protocol/messages.ts";

const why = (reason: string | undefined) => (reason ? `: ${reason}` : ".");

/** Kinds Convos words otherwise than their line's English words. */
const CONVOS: { [K in KeptKind]?: (f: KeptFields<K>) => string } = {
  topic: (f) =>
    f.topic ? `${f.nick} changed the topic to: ${f.topic}` : `${f.nick} cleared the topic.`,
  mode: (f) => `${f.nick} set mode ${f.mode}.`,
};

/** The sentence of a kept line of kind `kind`. */
function convosText(kind: KeptKind, fields: KeptFields): string {
  const own = CONVOS[kind] as ((f: KeptFields) => string) | undefined;
  if (own) return own(fields);
  const f = fields as Record<string, string | undefined>;
  const words = LINE_KINDS[kind].line;
  const said = words.say.replace(/\{(\w+)\}/g, (_, hole: string) => {
    const field = (words.fill as Record<string, string>)[hole];
    return f[field] ?? "";
  });
  return said + why("reason" in words ? f[words.reason] : undefined);
}

/** A page's messages with each kept event's sentence in `message`. */
export function withSentences<P extends { messages: MessageJson[] }>(page: P): P {
  if (!page.messages.some((m) => m.fields)) return page;
  const messages = page.messages.map((m) =>
    m.fields ? { ...m, message: convosText(m.type as KeptKind, m.fields as KeptFields) } : m
  );
  return { ...page, messages };
}
