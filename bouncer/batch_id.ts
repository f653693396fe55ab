/**
 * Batch references (IRCv3 `batch`) the bouncer opens: history, search results, labeled replies.
 * One counter for all of them, so no two batches a client sees at once share a reference.
 */
let batches = 0;

/** A batch reference unique in this process; `kind` only helps a reader of the raw lines. */
export function batchId(kind = "h"): string {
  return `${kind}${(++batches).toString(36)}`;
}
