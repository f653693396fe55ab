/** The emoji table itself, a chunk of its own (see emoji.ts). */
import { gemoji } from "gemoji";
import type { EmojiName } from "./popup.ts";

export const EMOJI: readonly EmojiName[] = gemoji;
