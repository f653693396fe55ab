/**
 * What a gap cost, asked of a server that keeps history (draft/chathistory: Ergo, or a bouncer in
 * front of the network): once a connection is back after a gap (gap.ts), each channel once its
 * join's names have ended, and each private conversation the server names (`CHATHISTORY
 * TARGETS`), gets `CHATHISTORY BETWEEN` the gap's start and end. What comes back is stored where
 * it belongs, at its own time and once (a line whose msgid is stored already is left out); it is
 * history, not news: counted unread, kept as a mention, but not notified, pushed, or relayed live
 * to IRC clients (they read it with CHATHISTORY, as any stored line). A channel's events in it
 * (draft/event-playback) are kept by backfill_events.ts.
 *
 * A conversation's gap marker waits for its fill: a fill that came whole (fewer lines than asked,
 * or, for a private conversation, not named by a TARGETS list that was not cut) leaves no gap to
 * mark. One cut, refused, unanswered in ANSWER_MS, or not asked by ASK_FOR_MS is marked.
 */
import { log } from "../../../lib/log.ts";
import { ircLine, type IrcMessage as Message } from "../../protocol/message.ts";
import { ERR_NOMOTD, RPL_ENDOFMOTD, RPL_ENDOFNAMES } from "../../protocol/numerics.ts";
import type { IrcConnection } from "../../engine/connection.ts";
import { cachedConversation } from "../record.ts";
import type { HandlerTable, Inbound } from "./context.ts";

/** Most lines asked per conversation (less when the server's ISUPPORT CHATHISTORY says so). */
const MAX_LINES = 1000;
/** Most private conversations asked after one gap. */
const MAX_TARGETS = 50;
/** Most history batches open at once (a server that never ends them holds no more). */
const MAX_BATCHES = 64;
/** Most msgids told apart per conversation's history. */
const MAX_KNOWN = 2000;
/** Most conversations asked after one gap. */
const MAX_ASKED = 1000;
/** How long after the welcome a channel's join still asks (a join may wait for its turn). */
const ASK_FOR_MS = 10 * 60_000;
/** How long an asked history may take before its conversation's gap is marked anyway. */
const ANSWER_MS = 30_000;

/** One gap being filled. */
interface Fill {
  /** The gap, in µs. */
  start: number;
  end: number;
  /** When its channels stop being asked (ms, `Date.now()`). */
  until: number;
  /** The channels the gap was marked in (casefolded): those asked once joined again. */
  channels: Set<string>;
  /** Conversations asked (casefolded). */
  asked: Set<string>;
  /** TARGETS was asked (once registration ended). */
  targetsAsked: boolean;
  /** Batches being received, by id: a conversation's history, or (null) TARGETS' list. */
  batches: Map<string, HistoryBatch | null>;
  /** Private conversations TARGETS named. */
  targets: string[];
  /** Lines of TARGETS' list received, and whether the list was ended (or refused, or late). */
  targetLines: number;
  targetsDone: boolean;
  /** Conversations (casefolded) whose gap marker waits for their fill. */
  waiting: Set<string>;
  /** Marks the gap in these conversations: their fill did not come whole. */
  mark: (conversations: string[]) => void;
  /** Its timers, cleared once nothing waits. */
  timers: ReturnType<typeof setTimeout>[];
}

/** One conversation's history being received. */
export interface HistoryBatch {
  /** The server's msgids of its lines stored since the gap began: a line among them is not
   * stored again (it came live, the server's clock ahead of Parley's). */
  known: Set<string>;
  /** Lines it may still keep: what was asked (a server that sends more is not followed). */
  room: number;
  /** Its conversation (casefolded). */
  conversation: string;
  /** Lines asked, and lines received: as many as asked may not be all. */
  asked: number;
  received: number;
}

const fills = new WeakMap<IrcConnection, Fill>();

/**
 * The connection came back after a gap (`start` to `end`, µs) in these conversations: their
 * history is asked of a server that keeps it, and `mark` is called with those it does not fill
 * whole. False (nothing asked, nothing marked) when the server keeps no history. A later
 * registration's gap replaces it; what the earlier one had not decided is marked.
 */
export function fillGap(
  conn: IrcConnection,
  start: number,
  end: number,
  conversations: string[],
  mark: (conversations: string[]) => void,
): boolean {
  const earlier = fills.get(conn);
  fills.delete(conn);
  if (earlier) decideAll(earlier);
  if (!conn.upstream.capEnabled("draft/chathistory") || !conn.upstream.capEnabled("batch")) {
    return false;
  }
  const fill: Fill = {
    start,
    end,
    until: Date.now() + ASK_FOR_MS,
    channels: new Set(conversations.filter((c) => conn.isChannel(c))),
    asked: new Set(),
    targetsAsked: false,
    batches: new Map(),
    targets: [],
    targetLines: 0,
    targetsDone: false,
    waiting: new Set(conversations),
    mark,
    timers: [],
  };
  fills.set(conn, fill);
  later(fill, ASK_FOR_MS, () => decideAll(fill));
  return true;
}

/** Runs `fn` after `ms` unless everything is decided first; never keeps the process up. */
function later(fill: Fill, ms: number, fn: () => void): void {
  const timer = setTimeout(fn, ms);
  Deno.unrefTimer(timer);
  fill.timers.push(timer);
}

/** The fill of `conversation` is over: its gap is marked unless it came whole. */
function decide(fill: Fill, conversation: string, whole: boolean): void {
  if (!fill.waiting.delete(conversation)) return;
  if (!whole) fill.mark([conversation]);
  if (fill.waiting.size === 0) { for (const t of fill.timers.splice(0)) clearTimeout(t); }
}

/** Whatever still waits is marked: its fill did not come in time. */
function decideAll(fill: Fill): void {
  const rest = [...fill.waiting];
  fill.waiting.clear();
  for (const t of fill.timers.splice(0)) clearTimeout(t);
  if (rest.length) fill.mark(rest);
}

/** The server's time form: whole milliseconds. */
const stamp = (us: number) => `timestamp=${new Date(Math.floor(us / 1000)).toISOString()}`;

/** Lines asked per conversation: Parley's bound, or the server's when it is lower. */
function linesAsked(cx: Inbound): number {
  const said = Number(cx.conn.upstream.isupportValue("CHATHISTORY"));
  return said > 0 ? Math.min(said, MAX_LINES) : MAX_LINES;
}

/** Asks one conversation's lines in the gap. */
function ask(cx: Inbound, fill: Fill, target: string): void {
  const id = cx.convId(target);
  if (fill.asked.has(id) || fill.asked.size >= MAX_ASKED) return;
  fill.asked.add(id);
  const limit = String(linesAsked(cx));
  send(cx, "CHATHISTORY", "BETWEEN", target, stamp(fill.start), stamp(fill.end), limit);
  if (fill.waiting.has(id)) later(fill, ANSWER_MS, () => decide(fill, id, false));
}

function send(cx: Inbound, command: string, ...params: string[]): void {
  const lost = (err: unknown) =>
    log.debug("history not asked", { connection: cx.conn.id, error: String(err) });
  try {
    cx.conn.send(ircLine(command, ...params), { query: true }).catch(lost);
  } catch (err) {
    // A name that cannot be sent back.
    lost(err);
  }
}

/**
 * The history batch `m` is a line of, when it is one Parley asked for (the line is counted as
 * received in it: each line is looked up once).
 */
export function historyOf(cx: Inbound, m: Message): HistoryBatch | undefined {
  const id = m.tags.get("batch");
  if (id === undefined) return undefined;
  const batch = fills.get(cx.conn)?.batches.get(id) ?? undefined;
  if (batch) batch.received++;
  return batch;
}

/**
 * Whether a line of `batch` is kept: its time (µs) lies in the gap (a server's line outside it
 * is not), and its msgid is not stored already. A kept msgid is known from then on.
 */
export function keeps(cx: Inbound, batch: HistoryBatch, ts: number, msgid?: string): boolean {
  const fill = fills.get(cx.conn);
  if (!fill || ts <= fill.start || ts >= fill.end || batch.room <= 0) return false;
  if (msgid !== undefined) {
    if (batch.known.has(msgid)) return false;
    if (batch.known.size < MAX_KNOWN) batch.known.add(msgid);
  }
  batch.room--;
  return true;
}

/** The server's msgids of the conversation's lines stored since the gap began. */
async function storedSince(cx: Inbound, name: string, start: number): Promise<Set<string>> {
  const conv = await cachedConversation(cx.deps, cx.conn, name, false);
  if (!conv) return new Set();
  const page = await cx.deps.store.messages.historyOf(conv.id, {
    after: start - 1,
    limit: MAX_KNOWN,
  });
  return new Set(page.messages.flatMap((m) => m.server_msgid ? [m.server_msgid] : []));
}

/** Marks the line being handled as asked history: no IRC client gets it live. */
function asked(cx: Inbound): void {
  if (cx.out) cx.out.produced = { kind: "history" };
}

/** Registration ended: the server names the private conversations with lines in the gap. */
function askTargets(cx: Inbound): void {
  const fill = fills.get(cx.conn);
  if (!fill || fill.targetsAsked) return;
  fill.targetsAsked = true;
  send(cx, "CHATHISTORY", "TARGETS", stamp(fill.start), stamp(fill.end), String(MAX_TARGETS));
  later(fill, ANSWER_MS, () => targetsDecided(cx, fill, false));
}

/**
 * TARGETS' list has ended (`whole`: not cut), or was refused or not answered: a private
 * conversation it did not name had nothing in the gap when the list is whole; otherwise it is
 * marked. Those it named are decided by their own history.
 */
function targetsDecided(cx: Inbound, fill: Fill, whole: boolean): void {
  if (fill.targetsDone) return;
  fill.targetsDone = true;
  const named = new Set(fill.targets.map((t) => cx.convId(t)));
  for (const id of [...fill.waiting]) {
    if (!cx.conn.isChannel(id) && !named.has(id)) decide(fill, id, whole);
  }
}

export const BACKFILL: HandlerTable = {
  [RPL_ENDOFMOTD]: (cx) => askTargets(cx),
  [ERR_NOMOTD]: (cx) => askTargets(cx),
  // The user's join of a channel has ended (its names): its lines in the gap.
  [RPL_ENDOFNAMES]: (cx, m) => {
    const fill = fills.get(cx.conn);
    const channel = m.params[1] ?? "";
    if (!fill || Date.now() > fill.until || !fill.channels.has(cx.convId(channel))) return;
    if (!cx.presence.isIn(cx.convId(channel), cx.convId(cx.conn.nick))) return;
    ask(cx, fill, channel);
  },
  BATCH: async (cx, m) => {
    const fill = fills.get(cx.conn);
    const ref = m.params[0] ?? "";
    if (!fill || ref.length < 2) return;
    const id = ref.slice(1);
    if (ref[0] === "+") {
      const [, type, target] = m.params;
      if (fill.batches.size >= MAX_BATCHES) return;
      if (type === "chathistory" && target && fill.asked.has(cx.convId(target))) {
        asked(cx);
        const known = await storedSince(cx, target, fill.start);
        const limit = linesAsked(cx);
        const conversation = cx.convId(target);
        fill.batches.set(id, { known, room: limit, conversation, asked: limit, received: 0 });
      } else if (type === "draft/chathistory-targets" && fill.targetsAsked) {
        asked(cx);
        fill.batches.set(id, null);
      }
      return;
    }
    if (ref[0] !== "-" || !fill.batches.has(id)) return;
    const batch = fill.batches.get(id);
    fill.batches.delete(id);
    asked(cx);
    if (batch) return decide(fill, batch.conversation, batch.received < batch.asked);
    targetsDecided(cx, fill, fill.targetLines < MAX_TARGETS);
    for (const t of fill.targets.splice(0)) ask(cx, fill, t);
  },
  // A refusal of a history Parley asked (clients' CHATHISTORY is answered by Parley, never sent
  // on): nobody's news. The conversation it names (or TARGETS' private ones) is marked.
  FAIL: (cx, m) => {
    const fill = fills.get(cx.conn);
    if (m.params[0] !== "CHATHISTORY" || !fill) return;
    asked(cx);
    const context = m.params.slice(2, -1);
    if (context.includes("TARGETS")) targetsDecided(cx, fill, false);
    for (const p of context) if (fill.asked.has(cx.convId(p))) decide(fill, cx.convId(p), false);
  },
  // One of TARGETS' list: a private conversation with lines in the gap (channels are asked as
  // they are joined).
  CHATHISTORY: (cx, m) => {
    const fill = fills.get(cx.conn);
    const id = m.tags.get("batch");
    if (!fill || id === undefined || fill.batches.get(id) !== null) return;
    asked(cx);
    fill.targetLines++;
    const target = m.params[1] ?? "";
    if (m.params[0] !== "TARGETS" || !target || cx.conn.isChannel(target)) return;
    if (fill.targets.length < MAX_TARGETS) fill.targets.push(target);
  },
};
