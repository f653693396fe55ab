/**
 * The seam between the listener and chat history: what a client's CHATHISTORY, MARKREAD and
 * replay on attach ask of the store. The listener calls it only for clients that negotiated the
 * capability; `unavailableHistory` answers until the history service is wired in.
 */

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
  /** Answers `MARKREAD target [timestamp=...]`: the marker (moved forward) or a FAIL line. */
  markRead(scope: HistoryScope, params: string[]): Promise<HistoryLines>;
  /** The `MARKREAD target timestamp=...` line for a channel, sent before its 366 on attach. */
  marker(scope: HistoryScope, target: string): Promise<string | undefined>;
  /** The MARKREAD line of a read marker that moved elsewhere (the web client, another client). */
  markerLine(target: string, ts: string): string;
  /** What a client without chathistory missed since its name last saw, to replay on attach. */
  replay(scope: HistoryScope, targets: string[]): Promise<HistoryLines>;
  /** The client left: what comes after now is what it will have missed. */
  detach(scope: HistoryScope): Promise<void>;
}

/** Until chat history is wired in: every request answers a FAIL, nothing is replayed. */
export const unavailableHistory: HistoryService = {
  limit: 100,
  chathistory: (_scope, params) =>
    Promise.resolve([
      `FAIL CHATHISTORY MESSAGE_ERROR ${safeWord(params[0])} :Chat history is not available yet`,
    ]),
  markRead: (_scope, params) =>
    Promise.resolve([
      `FAIL MARKREAD INTERNAL_ERROR ${safeWord(params[0])} :Read markers are not available yet`,
    ]),
  marker: () => Promise.resolve(undefined),
  markerLine: (target, ts) => `MARKREAD ${safeWord(target)} timestamp=${safeWord(ts)}`,
  replay: () => Promise.resolve([]),
  detach: () => Promise.resolve(),
};

/** A client's word echoed in a reply: one word, no line breaks, bounded. */
function safeWord(w: string | undefined): string {
  const word = (w ?? "*").replace(/[\s\0:]/g, "").slice(0, 64);
  return word || "*";
}
