/** Tab completion of nicks, commands and channels in the composer; pure. */
import { completableCommands } from "./commands.ts";
import { nickSuffix } from "./nick_suffix.ts";

/** The state of a completion cycle, so repeated Tab presses step through candidates. */
export interface Completion {
  /** The text before the word being completed. */
  prefix: string;
  /** The text after the cursor. */
  suffix: string;
  candidates: string[];
  index: number;
  /** What the candidates are, when the popup's list gave them (Tab's own guesses by their sign). */
  kind?: "command" | "nick" | "channel" | "emoji";
}

/**
 * The candidates that `word` could be completed to, in a stable order; `commands` are those the
 * user may run (completableCommands).
 */
function candidatesFor(
  word: string,
  atStart: boolean,
  nicks: string[],
  channels: string[],
  commands: readonly string[] = completableCommands([]),
): string[] {
  const lower = word.toLowerCase();
  if (word.startsWith("/") && atStart) {
    return commands.filter((c) => c.startsWith(lower.slice(1))).map((c) => "/" + c);
  }
  if (word.startsWith("#") || word.startsWith("&")) {
    return channels.filter((c) => c.toLowerCase().startsWith(lower));
  }
  if (!word) return [];
  // Nicks first; then channels whose name without its sign starts so ("par" finds #parley).
  return [
    ...nicks.filter((n) => n.toLowerCase().startsWith(lower)),
    ...channels.filter((c) => c.slice(1).toLowerCase().startsWith(lower)),
  ];
}

/**
 * The nicks to complete in a conversation, most recent speaker first: in a channel whose members
 * are known only those now in it (not who left, nor an old nick), the silent ones after the
 * speakers in alphabetical order; elsewhere the speakers.
 */
export function completionNicks(
  speakers: Iterable<string>,
  members: readonly string[] | undefined,
  me = "",
): string[] {
  const recent = [...speakers].reverse();
  const notMe = (n: string) => n.toLowerCase() !== me.toLowerCase();
  if (!members) return recent.filter(notMe);
  const present = new Map(members.map((n) => [n.toLowerCase(), n]));
  const out: string[] = [];
  for (const n of recent) {
    const now = present.get(n.toLowerCase());
    if (now === undefined) continue;
    out.push(now);
    present.delete(n.toLowerCase());
  }
  const rest = [...present.values()].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
  return [...out, ...rest].filter(notMe);
}

/** Starts completing the word before `cursor`; null when nothing matches. */
export function startCompletion(
  text: string,
  cursor: number,
  nicks: string[],
  channels: string[],
  commands?: readonly string[],
): Completion | null {
  const before = text.slice(0, cursor);
  const m = /(\S*)$/.exec(before)!;
  const word = m[1];
  const prefix = before.slice(0, before.length - word.length);
  const candidates = candidatesFor(word, prefix.trim() === "", nicks, channels, commands);
  if (!candidates.length) return null;
  return { prefix, suffix: text.slice(cursor), candidates, index: 0 };
}

/** The text and cursor position for the current candidate of `c`. */
export function applyCompletion(c: Completion): { text: string; cursor: number } {
  const word = c.candidates[c.index];
  // A nick at the start of a line is addressed: "bob: " (the suffix is the user's setting).
  const isNick = c.kind
    ? c.kind === "nick"
    : !word.startsWith("/") && !word.startsWith("#") && !word.startsWith("&");
  const tail = c.prefix.trim() === "" && isNick ? nickSuffix.value : " ";
  const head = c.prefix + word + (c.suffix.startsWith(" ") ? "" : tail);
  return { text: head + c.suffix, cursor: head.length };
}

/** The next candidate (Tab again), wrapping around. */
export function nextCompletion(c: Completion, step = 1): Completion {
  const n = c.candidates.length;
  return { ...c, index: (c.index + step + n) % n };
}
