/**
 * The bouncer's history side, what the listener asks of history for an attached client:
 * CHATHISTORY from the store, MARKREAD both ways, and the replay on attach for a client without
 * chathistory. It answers with whole IRC lines (tags included, no CR LF); the listener filters
 * them by the client's capabilities as it does live lines.
 */
import type { EventBus } from "../../lib/bus.ts";
import type { Store } from "../../store/mod.ts";
import type { MessageHistory } from "../../store/history_types.ts";
import { chathistory } from "./chathistory.ts";
import { markerLine, markerOf, markRead } from "./markers.ts";
import { detach, replay } from "./replay.ts";

/** Where a history request comes from: the user, the connection and the client's name. */
export interface HistoryScope {
  userId: number;
  /** The connection's row id and its connection_id. */
  connection: { id: number; connectionId: string };
  /** The CLIENT part of the username ("" when none). */
  client: string;
  /** The client's nick on the connection (history lines from the user carry it). */
  nick: string;
}

/** Lines to send: each a whole IRC line without CR LF, tags included. */
export type HistoryLines = string[];

/** What the listener asks of history. */
export interface HistoryService {
  /** The `CHATHISTORY=` ISUPPORT value: the most messages one request returns. */
  readonly limit: number;
  /**
   * Answers `CHATHISTORY <params>` (a batch, or a FAIL line); `batch` says whether the client
   * takes batches, `eventPlayback` whether it wants joins, parts and other events.
   */
  chathistory(
    scope: HistoryScope,
    params: string[],
    opts: { batch: boolean; eventPlayback: boolean },
  ): Promise<HistoryLines>;
  /**
   * Answers `MARKREAD target [timestamp=...]`: the marker (moved forward) or a FAIL line. A move
   * is also published as a `read` event, which the listener relays to every attached client.
   */
  markRead(scope: HistoryScope, params: string[]): Promise<HistoryLines>;
  /** The `MARKREAD target timestamp=...` line for a channel, sent before its 366 on attach. */
  marker(scope: HistoryScope, target: string): Promise<string | undefined>;
  /** The MARKREAD line of a `read` event of the bus, for the clients of its connection. */
  markerLine(target: string, ts: string): string;
  /**
   * What a client without chathistory missed since its name last saw (or the last lines of each
   * conversation when its name is new or empty), one `chathistory` batch per conversation with
   * lines. `targets` are the channels it is shown; private conversations with missed lines come
   * too. Its place moves to now.
   */
  replay(scope: HistoryScope, targets: string[]): Promise<HistoryLines>;
  /** The client left: what came after now is what it will have missed. */
  detach(scope: HistoryScope): Promise<void>;
}

/** The most lines one CHATHISTORY returns (`CHATHISTORY=` in ISUPPORT). */
export const CHATHISTORY_LIMIT = 1000;
/** Lines replayed per conversation to a client whose place is unknown. */
export const REPLAY_UNKNOWN = 50;
/**
 * How far back (µs) a client whose place is unknown is shown private conversations: those of the
 * last day, as a client that was never attached finds the day's talk; all of them would open a
 * window for everyone the user ever wrote to.
 */
export const REPLAY_UNKNOWN_PRIVATE_US = 24 * 3600 * 1_000_000;
/** Lines replayed per conversation at most, however much was missed. */
export const REPLAY_MAX = 500;

/** What the service needs. */
interface HistoryDeps {
  store: Store;
  bus: EventBus;
}

/** The parts of the store the service reads and writes. */
export interface HistoryParts {
  store: Store;
  history: MessageHistory;
  bus: EventBus;
}

/** The history service over the store; undefined when the store has no history capability. */
export function historyService(deps: HistoryDeps): HistoryService | undefined {
  const history = deps.store.messages.history;
  if (!history) return undefined;
  const parts: HistoryParts = { store: deps.store, history, bus: deps.bus };
  return {
    limit: CHATHISTORY_LIMIT,
    chathistory: (scope, params, opts) => chathistory(parts, scope, params, opts),
    markRead: (scope, params) => markRead(parts, scope, params),
    marker: (scope, target) => markerOf(parts, scope, target),
    markerLine,
    replay: (scope, targets) => replay(parts, scope, targets),
    detach: (scope) => detach(parts, scope),
  };
}
