/**
 * The gap marker: when a connection comes back after it was down (lost, disconnected, or Parley
 * itself stopped), each of its conversations keeps a line saying from when to when, so that
 * nobody mistakes the missing messages for silence.
 */
import { formatMicros, nowMicros, parseMicros } from "../../../lib/time.ts";
import type { IrcConnection } from "../../engine/connection.ts";
import type { IrcClient } from "../../engine/framework.ts";
import { isListed } from "../record.ts";
import type { HandlerTable, Inbound } from "./context.ts";

/** When this process started: for a connection not seen down since, Parley was down before. */
const STARTED = nowMicros();

/** When each connection last went down while this process ran. */
const wentDown = new WeakMap<IrcConnection, number>();
/** Each connection's client that registered and has not gone down yet. */
const upClient = new WeakMap<IrcConnection, IrcClient>();

/**
 * Notes when the registered client of `conn` goes down (its socket closes, or a new client
 * replaces it): the start of the next gap.
 */
export function watchForGap(conn: IrcConnection, client: IrcClient): void {
  const down = (was: IrcClient) => {
    if (upClient.get(conn) !== was) return;
    upClient.delete(conn);
    wentDown.set(conn, nowMicros());
  };
  const previous = upClient.get(conn);
  if (previous) down(previous);
  client.on("registered", () => void upClient.set(conn, client));
  client.on("socket close", () => down(client));
}

/** The gap's text, kept in history as it is sent live; the web client shows it in its words. */
export function gapText(from: number, to: number): string {
  return `Disconnected from ${formatMicros(from)} to ${formatMicros(to)}: ` +
    "messages in between may be missing.";
}

/**
 * The start of the gap that ends now: when the connection went down, or, when it was not seen
 * down by this process, its last stored line from before Parley started. Undefined when nothing
 * was ever stored (a new connection has no gap).
 */
async function gapStart(cx: Inbound, conversations: number[]): Promise<number | undefined> {
  const down = wentDown.get(cx.conn);
  if (down !== undefined) return down;
  let last: number | undefined;
  for (const id of conversations) {
    const page = await cx.deps.store.messages.historyOf(id, { before: STARTED, limit: 1 });
    const ts = page.messages.at(-1)?.ts;
    const us = ts ? parseMicros(ts) : null;
    if (us !== null && (last === undefined || us > last)) last = us;
  }
  return last;
}

export const GAP: HandlerTable = {
  // Back: every listed conversation keeps the gap, before anything the new session brings.
  registered: async (cx, ev) => {
    const { conn, deps } = cx;
    const all = await deps.store.conversations.listForConnection(conn.record.id);
    const start = await gapStart(cx, all.map((c) => c.id));
    wentDown.delete(conn);
    // Whole milliseconds, as history keeps times.
    const end = Math.floor(ev.ts / 1000) * 1000;
    if (start === undefined || start >= end) return;
    const text = gapText(start, end);
    for (const conv of all.filter(isListed)) {
      const { ts } = await deps.store.messages.append({
        conversation: conv.id,
        userId: conn.userId,
        from: "",
        type: "gap",
        text,
        ts: end,
        highlight: false,
      });
      cx.publish({
        type: "gap",
        conversation_id: conv.conversationId,
        from: formatMicros(start),
        to: formatMicros(end),
        message: text,
        ts: formatMicros(ts),
      });
    }
  },
};
