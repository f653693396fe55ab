/**
 * A channel's lists (bans, ban exceptions, invite exceptions) as the server last gave them to the
 * user. Parley never asks for them: it learns a list when anyone asks (a client's sync asks
 * `MODE #chan b` of every channel) and the server sends it whole, then follows the MODE lines that
 * add to it or take from it while the user stays in the channel. Bounded: a list longer than
 * MAX_ENTRIES, or one past the connection's MAX_TOTAL, is not kept.
 */
import {
  RPL_BANLIST,
  RPL_ENDOFBANLIST,
  RPL_ENDOFEXCEPTLIST,
  RPL_ENDOFINVITELIST,
  RPL_EXCEPTLIST,
  RPL_INVITELIST,
} from "./protocol/numerics.ts";
import type { ModeChange } from "./protocol/modes.ts";

/** The lists kept, by mode letter: the numerics of an entry and of the end, and the end's text. */
export const CHANNEL_LISTS = {
  b: { entry: RPL_BANLIST, end: RPL_ENDOFBANLIST, endText: "End of channel ban list" },
  e: { entry: RPL_EXCEPTLIST, end: RPL_ENDOFEXCEPTLIST, endText: "End of channel exception list" },
  I: { entry: RPL_INVITELIST, end: RPL_ENDOFINVITELIST, endText: "End of channel invite list" },
} as const;

export type ListMode = keyof typeof CHANNEL_LISTS;

/** One entry as the server's list line gives it: the mask, then who set it and when, if told. */
export type ListEntry = readonly string[];

/** A channel's known lists. */
export type Lists = Partial<Record<ListMode, ListEntry[]>>;

/** Most entries of one list kept: a longer list is answered by the server. */
const MAX_ENTRIES = 500;
/** Most entries kept over all of a connection's channels: a hostile server's lists are not. */
const MAX_TOTAL = 5000;
/** Longest mask, setter or time kept of an entry. */
const MAX_FIELD = 300;

/** Each list's numerics: its mode letter, and whether the line ends the list. */
const LIST_LINES = new Map<string, { mode: ListMode; end: boolean }>(
  (Object.keys(CHANNEL_LISTS) as ListMode[]).flatMap((mode) => [
    [CHANNEL_LISTS[mode].entry, { mode, end: false }],
    [CHANNEL_LISTS[mode].end, { mode, end: true }],
  ]),
);

/** A list line's mode letter and whether it ends the list; undefined for any other command. */
export function listLine(command: string): { mode: ListMode; end: boolean } | undefined {
  return LIST_LINES.get(command);
}

/** A list's mode letter when `letter` names one kept (`b`, `+b`); undefined otherwise. */
export function listMode(letter: string): ListMode | undefined {
  const l = letter.startsWith("+") ? letter.slice(1) : letter;
  return Object.hasOwn(CHANNEL_LISTS, l) ? l as ListMode : undefined;
}

/** An entry from a list line's parameters after the channel: mask, setter, time. */
export function entryOf(params: readonly string[]): ListEntry {
  return params.slice(0, 3).map((p) => p.slice(0, MAX_FIELD));
}

/**
 * Whether a list of `length` entries may take one more, `kept` entries being kept over the
 * connection's channels with it.
 */
export function hasRoom(length: number, kept: number): boolean {
  return length < MAX_ENTRIES && kept < MAX_TOTAL;
}

/**
 * `lists` after a MODE line's changes, made by `setter` at `time` (Unix seconds): an added mask
 * goes last, a removed one goes (masks compared as `lower` folds them). A change to a list
 * without its mask, or one past the list's bound or the connection's (`total` entries kept before
 * the line), makes that list unknown. Returns the entries kept after it.
 */
export function applyListChanges(
  lists: Lists,
  changes: readonly ModeChange[],
  setter: string,
  time: string,
  lower: (s: string) => string,
  total: number,
): number {
  for (const { mode, param } of changes) {
    const letter = listMode(mode[1]);
    const list = letter && lists[letter];
    if (!list) continue;
    const mask = param && lower(param);
    const at = mask ? list.findIndex((e) => lower(e[0]) === mask) : -1;
    if (param && mode[0] === "-") {
      if (at >= 0) list.splice(at, 1), total--;
    } else if (param && at >= 0) {
      // Already there: the server's list keeps the first setting.
    } else if (param && hasRoom(list.length, total)) {
      list.push(entryOf([param, setter, time]));
      total++;
    } else {
      total -= list.length;
      delete lists[letter];
    }
  }
  return total;
}
