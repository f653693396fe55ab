/** Rows of `messages` as the SQL backends read them (the same columns), and their API shape. */
import { formatMicros } from "../protocol/time.ts";
import { msgidOf } from "../lib/msgid.ts";
import { type MessageJson, type MessagePage, TYPES } from "../protocol/messages.ts";
import { keptFields } from "./event_fields.ts";

/** A message row; the two ids are there when the query joined its conversation. */
export interface Row {
  id: number;
  /** Its conversation's row id (part of its msgid). */
  conversation?: number;
  ts: number;
  type: number;
  highlight: number;
  sender: string;
  text: string;
  server_msgid?: string | null;
  reply_to?: string | null;
  /** A channel event's fields but the sender's, as JSON (store/event_fields.ts). */
  fields?: string | null;
  connection_id?: string;
  conversation_id?: string;
}

/** The columns of a Row, from `messages m`. */
export const COLUMNS =
  "m.id, m.conversation, m.ts, m.type, m.highlight, m.sender, m.text, m.server_msgid, m.reply_to, " +
  "m.fields";
/** The columns of a Row with where it was said (needs JOIN_WHERE). */
export const WHERE_COLUMNS = `${COLUMNS}, k.connection_id, c.conversation_id`;
/** Joins a message to its conversation and connection. */
export const JOIN_WHERE =
  "JOIN conversations c ON c.id = m.conversation JOIN connections k ON k.id = c.connection";

/** A row as the API returns it. */
export function toJson(row: Row): MessageJson {
  const type = TYPES[row.type] ?? "private";
  const out: MessageJson = { from: row.sender, message: row.text, ts: formatMicros(row.ts), type };
  const fields = row.fields ? keptFields(type, row.sender, row.fields) : undefined;
  if (fields) out.fields = fields;
  if (row.highlight) out.highlight = true;
  if (row.conversation !== undefined) out.msgid = msgidOf(row.conversation, row.ts);
  if (row.server_msgid) out.server_msgid = row.server_msgid;
  if (row.reply_to) out.reply_to = row.reply_to;
  if (row.connection_id !== undefined) out.connection_id = row.connection_id;
  if (row.conversation_id !== undefined) out.conversation_id = row.conversation_id;
  return out;
}

/**
 * A page of `got` (fetched with limit + 1, newest first) cut to `limit`: `end` when nothing
 * older is left, else `before` to read on. The shape of search and notification pages.
 */
export function newestFirstPage(got: Row[], limit: number): MessagePage {
  const rows = got.slice(0, limit);
  const out: MessagePage = { messages: rows.map(toJson), end: got.length <= limit };
  if (!out.end) out.before = formatMicros(rows[rows.length - 1].ts);
  return out;
}

/** A page of `rows` (oldest first), with a cursor on each side where more is left. */
export function pageOf(rows: Row[], hasOlder: boolean, hasNewer: boolean): MessagePage {
  const out: MessagePage = { messages: rows.map(toJson) };
  if (hasOlder && rows.length) out.before = formatMicros(rows[0].ts);
  if (hasNewer && rows.length) out.after = formatMicros(rows[rows.length - 1].ts);
  return out;
}

/** The page around a time: each side fetched nearest first with limit + 1 rows. */
export function aroundPage(before: Row[], after: Row[], limit: number): MessagePage {
  const rows = [...before.slice(0, limit).reverse(), ...after.slice(0, limit)];
  return pageOf(rows, before.length > limit, after.length > limit);
}

/** One direction's page: `got` fetched nearest the cursor first with limit + 1 rows. */
export function oneWayPage(got: Row[], limit: number, forward: boolean): MessagePage {
  const more = got.length > limit;
  const rows = forward ? got.slice(0, limit) : got.slice(0, limit).reverse();
  return pageOf(rows, !forward && more, forward && more);
}
