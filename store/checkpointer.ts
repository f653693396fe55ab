/** The main thread's handle on the checkpoint worker (store/checkpoint_worker.ts). */
import { log } from "../lib/log.ts";

/** Messages to the worker. */
export type ToCheckpointer =
  | { kind: "open"; path: string }
  | { kind: "checkpoint" }
  | { kind: "close" };

/** Messages from the worker. */
export type FromCheckpointer =
  | { kind: "done" }
  | { kind: "closed" }
  | { kind: "failed"; error: string };

/** Checkpoints of one database, run on a thread of their own. */
export interface Checkpointer {
  /** Copies the WAL into the database file; resolves when done (or failed, which is logged). */
  checkpoint(): Promise<void>;
  /** Stops the worker. */
  close(): Promise<void>;
}

/** Starts the checkpoint worker for the database at `path`. */
export function startCheckpointer(path: string): Checkpointer {
  const worker = new Worker(new URL("./checkpoint_worker.ts", import.meta.url).href, {
    type: "module",
  });
  // One request at a time; the worker answers in order.
  const waiting: (() => void)[] = [];
  let onClosed: (() => void) | undefined;
  let closed = false;
  const send = (msg: ToCheckpointer) => worker.postMessage(msg);
  const answerOne = () => waiting.shift()?.();
  worker.onmessage = (e: MessageEvent<FromCheckpointer>) => {
    const msg = e.data;
    if (msg.kind === "failed") log.warn("checkpoint failed", { error: msg.error });
    if (msg.kind === "closed") {
      worker.terminate();
      onClosed?.();
    } else answerOne();
  };
  worker.onerror = (e) => {
    e.preventDefault();
    log.error("checkpoint worker failed", { error: e.message });
    closed = true;
    for (const done of waiting.splice(0)) done();
    onClosed?.();
  };
  send({ kind: "open", path });
  return {
    checkpoint() {
      if (closed) return Promise.resolve();
      return new Promise((resolve) => {
        waiting.push(resolve);
        send({ kind: "checkpoint" });
      });
    },
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      const done = new Promise<void>((resolve) => onClosed = resolve);
      for (const w of waiting.splice(0)) w();
      send({ kind: "close" });
      return done;
    },
  };
}
