/**
 * What the completion popup offers while a word is typed, and the completion taking an item
 * makes; pure. A chunk of its own, fetched when the message box first takes the focus: it imports
 * nothing, so splitting it off leaves the entry's shared chunk whole (which keeps it small).
 */
import type { Completion } from "./complete.ts";

/** One choice in the completion popup: what is inserted, what it shows, and a hint beside it. */
interface PopupItem {
  value: string;
  label: string;
  /** A command's usage. */
  detail?: string;
  /** A command's one-line description, in English (the key of its translation). */
  description?: string;
}

/** What the popup offers for the word at the cursor, and which item is chosen (-1: none). */
export interface Popup {
  kind: "command" | "nick" | "channel" | "emoji";
  /** Where the word being completed starts in the text. */
  start: number;
  items: PopupItem[];
  index: number;
}

/** A command as the popup lists it (a CommandSpec's fields). */
interface PopupCommand {
  name: string;
  aliases: readonly string[];
  usage: string;
  description: string;
}

/** An emoji, its short names (`thumbsup`) and the words it is found by (`approve`). */
export interface EmojiName {
  emoji: string;
  names: readonly string[];
  tags: readonly string[];
}

/**
 * The most items the popup shows: more is noise, the user types on.
 *
 * @internal test seam
 */
export const POPUP_LIMIT = 8;

/** The name a word asks emoji for (`:tad`: "tad"): `:` and two letters or more; else undefined. */
export const emojiAsked = (word: string): string | undefined => /^:([\w+-]{2,})$/.exec(word)?.[1];

/**
 * The emoji whose short name is `part` (lower case), then those a name of which starts with it,
 * then those with a word of a name (`_up` of `thumbs_up`) or a keyword starting with it; each
 * once, with the name that found it; at most `limit`.
 */
export function findEmoji(
  emojis: readonly EmojiName[],
  part: string,
  limit = POPUP_LIMIT,
): { emoji: string; name: string }[] {
  const found = new Map<string, string>();
  const pass = (match: (e: EmojiName) => string | undefined) => {
    for (const e of emojis) {
      if (found.size >= limit) return;
      if (found.has(e.emoji)) continue;
      const name = match(e);
      if (name !== undefined) found.set(e.emoji, name);
    }
  };
  pass((e) => e.names.find((n) => n === part));
  pass((e) => e.names.find((n) => n.startsWith(part)));
  pass((e) => e.names.find((n) => n.includes("_" + part)));
  pass((e) => e.tags.some((t) => t.startsWith(part)) ? e.names[0] : undefined);
  return [...found].map(([emoji, name]) => ({ emoji, name }));
}

/**
 * The popup for the word before `cursor`, or null: `/` at the start of the line lists commands
 * with their usage, `#` channels, `@` or the first two letters of a nick the nicks present (in
 * `nicks`' order, most recent speaker first), `:` and two letters of a name the emoji (once
 * `emojis` are loaded). After `/`, `#`, `@` and `:` the first item is chosen, so Enter takes it;
 * after bare letters none is, so Enter still sends the line.
 */
export function popupFor(
  text: string,
  cursor: number,
  nicks: readonly string[],
  channels: readonly string[],
  commands: readonly PopupCommand[],
  emojis: readonly EmojiName[] | null = null,
): Popup | null {
  // Only at the end of a word: a popup in the middle of one would replace half of it.
  if (cursor < text.length && !/\s/.test(text[cursor])) return null;
  const before = text.slice(0, cursor);
  const word = /(\S*)$/.exec(before)![1];
  const start = cursor - word.length;
  const lower = word.toLowerCase();
  const popup = (kind: Popup["kind"], items: PopupItem[], index: number): Popup | null => {
    const shown = items.slice(0, POPUP_LIMIT);
    // Nothing to offer, or only what is typed already.
    if (!shown.length || (shown.length === 1 && shown[0].value === word)) return null;
    return { kind, start, items: shown, index };
  };
  if (word.startsWith("/") && !word.startsWith("//") && before.slice(0, start).trim() === "") {
    const typed = lower.slice(1);
    const items: PopupItem[] = [];
    // Each name and alias that fits, as Tab steps through them.
    for (const c of commands) {
      for (const name of [c.name, ...c.aliases]) {
        if (!name.startsWith(typed)) continue;
        items.push({
          value: "/" + name,
          label: "/" + name,
          // The usage without its name, which the label shows: "<#channel> [key]".
          detail: c.usage.replace(/^\S+\s*/, ""),
          description: c.description,
        });
      }
    }
    items.sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
    return popup("command", items, 0);
  }
  if (word.startsWith("#") || word.startsWith("&")) {
    const items = channels.filter((c) => c.toLowerCase().startsWith(lower)).sort()
      .map((c) => ({ value: c, label: c }));
    return popup("channel", items, 0);
  }
  const named = emojiAsked(word);
  if (named !== undefined) {
    const items = emojis && findEmoji(emojis, named.toLowerCase())
      .map(({ emoji, name }) => ({ value: emoji, label: `${emoji} :${name}:` }));
    return items && popup("emoji", items, 0);
  }
  const at = word.startsWith("@");
  const part = at ? lower.slice(1) : lower;
  if (!at && part.length < 2) return null;
  const items = nicks.filter((n) => n.toLowerCase().startsWith(part))
    .map((n) => ({ value: n, label: n }));
  return popup("nick", items, at ? 0 : -1);
}

/** The completion (for applyCompletion) that takes the popup's item `index` for its word. */
export function choosePopup(text: string, cursor: number, p: Popup, index: number): Completion {
  return {
    prefix: text.slice(0, p.start),
    suffix: text.slice(cursor),
    candidates: p.items.map((i) => i.value),
    index,
    kind: p.kind,
  };
}
