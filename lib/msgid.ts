/**
 * The `msgid` of a stored line: its conversation's row id and the millisecond it owns there (the
 * store gives each line of a conversation a millisecond of its own), both in base 36: `2s.mf2k0x1c`.
 * So it is the same live and in history, survives a private conversation following its person to
 * a new nick, is URL-safe, and names the line by itself: no table of ids to look it up in. A line
 * passed on without being stored (a join, a mode change...) gets a random one instead.
 */
import { base64url } from "./crypto.ts";

/** The msgid of the line stored at `ts` (µs) in conversation `conversation` (its row id). */
export function msgidOf(conversation: number, ts: number): string {
  return `${conversation.toString(36)}.${Math.floor(ts / 1000).toString(36)}`;
}

/** A msgid read back: the conversation and the millisecond; undefined when it is none of ours. */
export function parseMsgid(msgid: string): { conversation: number; ms: number } | undefined {
  const m = /^([0-9a-z]{1,11})\.([0-9a-z]{1,11})$/.exec(msgid);
  if (!m) return undefined;
  const conversation = parseInt(m[1], 36);
  const ms = parseInt(m[2], 36);
  if (!Number.isSafeInteger(conversation) || !Number.isSafeInteger(ms * 1000)) return undefined;
  if (conversation < 1) return undefined;
  return { conversation, ms };
}

/** The msgid of a line passed on without being stored: random. */
export function passingMsgid(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(15)));
}
