/**
 * The seam between the listener and chat history (the service is bouncer/history/): what a
 * client's CHATHISTORY, MARKREAD and replay on attach ask of the store. The listener calls it only
 * for clients that negotiated the capability; `unavailableHistory` answers when the store has no
 * history capability.
 */

export type { HistoryScope, HistoryService } from "./history/mod.ts";
import type { HistoryService } from "./history/mod.ts";

/** Without the store's history capability: every request answers a FAIL, nothing is replayed. */
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
  markerLine: (target, ts) => {
    const time = ts.replace(/[\s\0]/g, "").slice(0, 40);
    return `MARKREAD ${safeWord(target)} ${time ? `timestamp=${time}` : "*"}`;
  },
  replay: () => Promise.resolve([]),
  detach: () => Promise.resolve(),
};

/** A client's word echoed in a reply: one word, no line breaks, bounded. */
function safeWord(w: string | undefined): string {
  const word = (w ?? "*").replace(/[\s\0:]/g, "").slice(0, 64);
  return word || "*";
}
