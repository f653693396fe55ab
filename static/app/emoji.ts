/**
 * Emoji by their short names (`:thumbsup:`), for the message box's popup and the reaction picker's
 * search: GitHub's names, the ones chat users know from GitHub, Slack and Convos, with their
 * keywords (the `gemoji` package). About 1,900 of them make a chunk of their own, fetched the first
 * time a `:name` is typed or the picker is opened. This module comes with the chunks that use it.
 */
import { signal } from "@preact/signals";
import { emojiAsked, type EmojiName } from "./popup.ts";

/** The table once fetched; null until then. */
const emojiTable = signal<readonly EmojiName[] | null>(null);

let loading: Promise<void> | undefined;

/** Fetches the table once (again after a failure, at the next `:name`). */
function loadEmojis(): Promise<void> {
  return loading ??= import("./emoji_table.ts").then(
    (m) => void (emojiTable.value = m.EMOJI),
    (err) => {
      loading = undefined;
      // The popup offers no emoji; what is typed stays text.
      console.warn("emoji names not loaded", err);
    },
  );
}

/**
 * The table for the popup of the text before the cursor: null until fetched, and fetched once
 * that text ends in a word asking for emoji (`:` and two letters). Read while rendering, the
 * signal renders the box again when the table comes.
 */
export function emojisFor(before: string): readonly EmojiName[] | null {
  return emojiAsked(/\S*$/.exec(before)![0]) === undefined ? emojiTable.value : allEmoji();
}

/** The table, fetched now if it is not yet; null until it comes (read while rendering, as above). */
export function allEmoji(): readonly EmojiName[] | null {
  if (!emojiTable.value) void loadEmojis();
  return emojiTable.value;
}
