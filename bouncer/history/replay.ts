/**
 * The replay on attach for a client without chathistory: what it missed since its name last saw
 * (or the last lines of each conversation when its place is unknown), one `chathistory` batch per
 * conversation; its place in history is kept per connection and client name in the store.
 */
import { isChannel } from "../../irc/casefold.ts";
import { ircLower } from "../../lib/casefold.ts";
import { nowMicros } from "../../lib/time.ts";
import { batchId, historyLine, inBatch } from "./lines.ts";
import {
  type HistoryLines,
  type HistoryParts,
  type HistoryScope,
  REPLAY_MAX,
  REPLAY_UNKNOWN,
} from "./mod.ts";
import { lineTarget } from "./target.ts";

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
  for (const conv of await parts.store.conversations.listForConnection(scope.connection.id)) {
    const id = conv.conversationId;
    // The channels it is shown, and private conversations that have something to show.
    if (id === "" || (isChannel(id) ? !wanted.has(id) : since === undefined)) continue;
    const lines = await parts.history.lines(conv.id, {
      after: since ?? -1,
      before: until,
      limit: since === undefined ? REPLAY_UNKNOWN : REPLAY_MAX,
      newest: true,
      events: false,
    });
    if (!lines.length) continue;
    const t = lineTarget(conv, scope);
    const batch = batchId();
    const body = lines.map((l) => historyLine(l, t, batch)).filter((l): l is string => !!l);
    out.push(...inBatch(batch, "chathistory", [t.name], body));
  }
  if (client) await parts.history.setPosition(scope.connection.id, client, until - 1);
  return out;
}

/** The client left: it has seen everything up to now. */
export async function detach(parts: HistoryParts, scope: HistoryScope): Promise<void> {
  const client = keyOf(scope);
  if (client) await parts.history.setPosition(scope.connection.id, client, cutoff() - 1);
}
