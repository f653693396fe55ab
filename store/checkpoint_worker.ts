/**
 * The checkpoint worker: copies `parley.db`'s write-ahead log into the database file when the
 * message writer asks. A checkpoint ends in fsyncs that can take a hundred milliseconds and
 * more; on this thread they never stall the event loop that serves IRC and the browsers.
 */
import { DatabaseSync } from "node:sqlite";
import type { FromCheckpointer, ToCheckpointer } from "./checkpointer.ts";

const port = self as unknown as {
  onmessage: ((e: MessageEvent<ToCheckpointer>) => void) | null;
  postMessage(message: FromCheckpointer): void;
};

let db: DatabaseSync | undefined;

port.onmessage = (e) => {
  const msg = e.data;
  try {
    if (msg.kind === "open") {
      db = new DatabaseSync(msg.path);
      // After a restart the WAL file is cut back to this size, so a burst does not keep it big.
      db.exec("PRAGMA busy_timeout = 5000; PRAGMA journal_size_limit = 67108864;");
    } else if (msg.kind === "checkpoint") {
      // RESTART: copies all of it, waiting for readers of older snapshots (the indexer's short
      // reads), so that the next commit starts the WAL over. It would also hold writers back,
      // but the writer holds its commits back itself while it waits for this answer.
      db?.exec("PRAGMA wal_checkpoint(RESTART)");
      port.postMessage({ kind: "done" });
    } else if (msg.kind === "close") {
      db?.close();
      db = undefined;
      port.postMessage({ kind: "closed" });
    }
  } catch (err) {
    port.postMessage({ kind: "failed", error: String(err) });
  }
};
