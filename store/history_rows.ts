/** Rows of `messages` as both backends' history capability reads them (store/history_types.ts). */
import type { HistoryLine } from "./history_types.ts";
import { FIRST_EVENT_CODE, TYPE_CODE, TYPES } from "../protocol/messages.ts";
import { keptFields } from "./event_fields.ts";

/** The columns history reads. */
export interface LineRow {
  conversation: number;
  ts: number;
  type: number;
  sender: string;
  text: string;
  fields: string | null;
  server_msgid: string | null;
  reply_to: string | null;
  sender_host: string | null;
}

/** The columns of a LineRow. */
export const LINE_COLUMNS =
  "conversation, ts, type, sender, text, fields, server_msgid, reply_to, sender_host";

/** A stored row as a HistoryLine. */
export function toLine(r: LineRow): HistoryLine {
  const type = TYPES[r.type] ?? "private";
  const line: HistoryLine = {
    conversation: r.conversation,
    ts: r.ts,
    type,
    from: r.sender,
    text: r.text,
  };
  const fields = r.fields ? keptFields(type, r.sender, r.fields) : undefined;
  if (fields) line.fields = fields;
  if (r.server_msgid) line.serverMsgid = r.server_msgid;
  if (r.reply_to) line.replyTo = r.reply_to;
  if (r.sender_host) line.fromHost = r.sender_host;
  return line;
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
