/**
 * The replay on attach for a client without chathistory: what it missed since its name last saw
 * (or the last lines of each conversation when its place is unknown), one `chathistory` batch per
 * conversation; its place in history is kept per connection and client name in the store.
 */
import { ircLower, isChannel } from "../../lib/casefold.ts";
import { nowMicros } from "../../lib/time.ts";
import { ircLine } from "../../irc/protocol/message.ts";
import { GAP_SOURCE, historyLine, inBatch, ircTime } from "./lines.ts";
import { batchId } from "../batch_id.ts";
import {
  type HistoryLines,
  type HistoryParts,
  type HistoryScope,
  REPLAY_MAX,
  REPLAY_UNKNOWN,
  REPLAY_UNKNOWN_PRIVATE_US,
} from "./mod.ts";
import { lineTarget } from "./target.ts";
import { repliesOf } from "./replies.ts";

/** The client name a place is kept under ("" is every client without one: none is kept). */
const keyOf = (scope: HistoryScope) => scope.client.slice(0, 100);

/**
 * The start of the current millisecond: lines are stored at whole milliseconds, so one stored
 * during this millisecond may still come at or after it; a place is kept just before it.
 */
function cutoff(): number {
  const now = nowMicros();
  return now - (now % 1000);
}

/** Lines after the cap counted at most, to say how many a cut replay skipped. */
const COUNT_MAX = 10_000;
/** Beyond every stored time. */
const NONE_AFTER = Number.MAX_SAFE_INTEGER;

/** What the client missed, in batches; its place moves to now. */
export async function replay(
  parts: HistoryParts,
  scope: HistoryScope,
  targets: string[],
): Promise<HistoryLines> {
  const client = keyOf(scope);
  const since = client ? await parts.history.position(scope.connection.id, client) : undefined;
  const until = cutoff();
  const wanted = new Set(targets.map((t) => ircLower(t)));
  const out: string[] = [];
  // The place moves past every line replayed: a burst's last lines may lie ahead of `until`.
  let seen = until - 1;
  for (const conv of await parts.store.conversations.listForConnection(scope.connection.id)) {
    const id = conv.conversationId;
    // The channels it is shown, and private conversations that have something to show: since
    // its place, or of the last day for a name seen the first time (a client without a name has
    // no place ever: it would be given the day's again at each attach).
    const channel = isChannel(id);
    if (id === "" || (channel ? !wanted.has(id) : since === undefined && !client)) continue;
    const limit = since === undefined ? REPLAY_UNKNOWN : REPLAY_MAX;
    const after = since ?? (channel ? -1 : until - REPLAY_UNKNOWN_PRIVATE_US);
    const lines = await parts.history.lines(conv.id, {
      after,
      // Not `until`: each line of a burst takes a millisecond of its own, so its last lines may
      // lie ahead of the clock; they went live before the client attached and come no other way.
      before: NONE_AFTER,
      limit,
      newest: true,
      events: false,
    });
    if (!lines.length) continue;
    seen = Math.max(seen, lines.at(-1)!.ts);
    const t = lineTarget(conv, scope);
    const batch = batchId();
    const replies = await repliesOf(parts.history, lines);
    const body = lines.map((l) => historyLine(l, t, batch, replies))
      .filter((l): l is string => !!l);
    if (since !== undefined && lines.length === limit) {
      const skipped = await parts.history.lines(conv.id, {
        after: since,
        before: lines[0].ts,
        limit: COUNT_MAX,
        newest: false,
        events: false,
      });
      if (skipped.length) {
        const to = t.isChannel ? t.name : t.nick;
        body.unshift(skippedNotice(skipped.length, lines[0].ts, to, batch));
      }
    }
    out.push(...inBatch(batch, "chathistory", [t.name], body));
  }
  if (client) await parts.history.setPosition(scope.connection.id, client, seen);
  return out;
}

/** The client left: it has seen everything up to now. */
export async function detach(parts: HistoryParts, scope: HistoryScope): Promise<void> {
  const client = keyOf(scope);
  if (client) await parts.history.setPosition(scope.connection.id, client, cutoff() - 1);
}

/**
 * The line that begins a replay cut at its cap: how many earlier lines it leaves out and where to
 * read them. It is Parley's, so it has no msgid of its own; its time is the first line's.
 */
function skippedNotice(count: number, ts: number, target: string, batch: string): string {
  const n = count >= COUNT_MAX ? `More than ${COUNT_MAX - 1}` : String(count);
  const text = `${n} earlier line${count === 1 ? "" : "s"} you missed ${
    count === 1 ? "is" : "are"
  } not replayed here (at most ${REPLAY_MAX} per conversation): read them with CHATHISTORY or in Parley's web client.`;
  return `@batch=${batch};time=${ircTime(ts)} :${GAP_SOURCE} ${ircLine("NOTICE", target, text)}`;
}
