/**
 * Checkpoints of `parley.db`'s write-ahead log, as the message writer asks for them. They run on
 * the search indexer's thread (store/sqlite/search_worker.ts), so their fsyncs never stall the
 * event loop that serves IRC and the browsers; `SearchIndexer` is the implementation.
 */
export interface Checkpointer {
  /** Copies the WAL into the database file; resolves when done (or failed, which is logged). */
  checkpoint(): Promise<void>;
}
