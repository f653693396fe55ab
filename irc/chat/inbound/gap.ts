/**
 * The gap marker: when a connection comes back after it was down (lost, disconnected, or Parley
 * itself stopped), each of its conversations keeps a line saying from when to when, so that
 * nobody mistakes the missing messages for silence. On a server that keeps history the marker
 * waits for the gap's fill (backfill.ts), and a conversation filled whole gets none.
 */
import { nowMicros } from "../../../lib/time.ts";
import { log } from "../../../lib/log.ts";
import { formatMicros, parseMicros } from "../../../protocol/time.ts";
import type { IrcConnection } from "../../engine/connection.ts";
import type { IrcClient } from "../../engine/client.ts";
import type { ConversationRecord } from "../../../store/conversations.ts";
import { isListed } from "../record.ts";
import type { HandlerTable, Inbound } from "./context.ts";
import { fillGap } from "./backfill.ts";
import { RPL_WELCOME } from "../../protocol/numerics.ts";

/** When this process started: for a connection not seen down since, Parley was down before. */
const STARTED = nowMicros();

/**
 * When each connection last went down while this process ran (µs), and when it last heard its
 * server before (at most then): a connection that died silently, noticed when a ping timed out
 * minutes later, missed what was said from its last line.
 */
const wentDown = new WeakMap<IrcConnection, { at: number; heard: number }>();
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
    const at = nowMicros();
    const heard = was.lastRead * 1000;
    wentDown.set(conn, { at, heard: heard > 0 && heard < at ? heard : at });
  };
  const previous = upClient.get(conn);
  if (previous) down(previous);
  client.on("registered", () => void upClient.set(conn, client));
  client.on("socket close", () => down(client));
}

/** The gap's text, kept in history as it is sent live; the web client shows it in its words. */
function gapText(from: number, to: number): string {
  return `Disconnected from ${formatMicros(from)} to ${formatMicros(to)}: ` +
    "messages in between may be missing.";
}

/**
 * The start of the gap that ends at `end`: when the connection went down, or, when this process
 * did not see it go down (Parley was down, or another node ran it), the last line stored before:
 * in its conversations, and in its server conversation before this process started (what that
 * got since, "Connecting to...", belongs to this connect). Undefined when nothing was ever stored
 * (a new connection has no gap).
 */
async function gapStart(
  cx: Inbound,
  conversations: ConversationRecord[],
  end: number,
): Promise<number | undefined> {
  const down = wentDown.get(cx.conn);
  if (down !== undefined) return down.at;
  let last: number | undefined;
  for (const c of conversations) {
    const before = c.conversationId === "" ? Math.min(STARTED, end) : end;
    const page = await cx.deps.store.messages.historyOf(c.id, { before, limit: 1 });
    const ts = page.messages.at(-1)?.ts;
    const us = ts ? parseMicros(ts) : null;
    if (us !== null && (last === undefined || us > last)) last = us;
  }
  return last;
}

export const GAP: HandlerTable = {
  // Back: every listed conversation keeps the gap, before anything the new session brings.
  [RPL_WELCOME]: async (cx, _m, ts) => {
    const { conn, deps } = cx;
    // Whole milliseconds, as history keeps times.
    const end = Math.floor(ts / 1000) * 1000;
    const listed = (await deps.store.conversations.listForConnection(conn.record.id, {
      unread: false,
    }))
      .filter((c) => isListed(c) || c.conversationId === "");
    const down = wentDown.get(conn);
    const start = await gapStart(cx, listed, end);
    wentDown.delete(conn);
    if (start === undefined || start >= end) return;
    const marked = listed.filter(isListed);
    const mark = (ids: string[]) => {
      const which = new Set(ids);
      const convs = marked.filter((c) => which.has(c.conversationId));
      markGap(cx, convs, start, end).catch((err) =>
        log.warn("gap not marked", { connection: conn.id, error: String(err) })
      );
    };
    // The server's history is asked from when it was last heard: what was said while the
    // silence went unnoticed was missed too.
    const ids = marked.map((c) => c.conversationId);
    if (!fillGap(conn, down?.heard ?? start, end, ids, mark)) await markGap(cx, marked, start, end);
  },
};

/** Keeps the gap's marker in each of `conversations`, at the gap's end, and tells the web. */
async function markGap(
  cx: Inbound,
  conversations: ConversationRecord[],
  start: number,
  end: number,
): Promise<void> {
  const { conn, deps } = cx;
  const text = gapText(start, end);
  for (const conv of conversations) {
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
}
