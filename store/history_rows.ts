/** Rows of `messages` as both backends' history capability reads them (store/history_types.ts). */
import type { HistoryLine } from "./history_types.ts";
import { FIRST_EVENT_CODE, TYPE_CODE, TYPES } from "./message_types.ts";

/** The columns history reads. */
export interface LineRow {
  conversation: number;
  ts: number;
  type: number;
  sender: string;
  text: string;
}

/** A stored row as a HistoryLine. */
export function toLine(r: LineRow): HistoryLine {
  return {
    conversation: r.conversation,
    ts: r.ts,
    type: TYPES[r.type] ?? "private",
    from: r.sender,
    text: r.text,
  };
}

/** Types below this are kept; every stored type is below the first unused code. */
export const typeBound = (events: boolean) => events ? TYPES.length : FIRST_EVENT_CODE;

/**
 * The types a conversation's lines are read with: below the bound, and gaps (the marker of a
 * stretch Parley was not connected) always, since a reader without events still needs to know
 * lines may be missing there. Targets (CHATHISTORY TARGETS) never count gaps, events or not:
 * every conversation gets one at each reconnect.
 */
export const lineTypes = (events: boolean) => [typeBound(events), TYPE_CODE.gap] as const;
