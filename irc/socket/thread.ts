/**
 * IRC sockets on a thread of their own (socket/worker.ts), seen from the main thread as the part
 * of a node:net socket that socket/transport.ts uses. The thread starts with the first socket and
 * ends with the last, so a process without IRC connections has no extra engine.
 */
import { EventEmitter } from "node:events";
import type { FromSocketThread, SocketTarget, ToSocketThread } from "./protocol.ts";

/** Taken bytes are told to the thread once this many have gathered (its bound is 64 MB). */
const ACK_BYTES = 1024 * 1024;

let worker: Worker | undefined;
const open = new Map<number, ThreadSocket>();
const callbacks = new Map<number, () => void>();
let nextId = 1;
let nextCb = 1;

function send(msg: ToSocketThread): void {
  worker?.postMessage(msg);
}

function thread(): Worker {
  if (worker) return worker;
  const w = new Worker(new URL("./worker.ts", import.meta.url).href, { type: "module" });
  w.onmessage = (e: MessageEvent<FromSocketThread>) => {
    const msg = e.data;
    if (msg.ev === "written") {
      const cb = callbacks.get(msg.cb);
      callbacks.delete(msg.cb);
      return cb?.();
    }
    open.get(msg.id)?.receive(msg);
  };
  w.onerror = (e) => {
    // A bug in the thread: every socket on it is gone; each says so, and the next starts anew.
    e.preventDefault();
    worker = undefined;
    w.terminate();
    for (const s of [...open.values()]) {
      s.receive({ id: s.id, ev: "error", message: `IRC socket thread failed: ${e.message}` });
      s.receive({ id: s.id, ev: "close" });
    }
  };
  return worker = w;
}

/** A socket on the IRC socket thread: emits connect, secureConnect, data, error, timeout, close. */
export class ThreadSocket extends EventEmitter {
  readonly id = nextId++;
  #closed = false;
  /** Bytes taken and not yet told to the thread. */
  #taken = 0;
  /** Our port of the connection, once connected. */
  localPort?: number;

  constructor(options: SocketTarget) {
    super();
    open.set(this.id, this);
    thread();
    send({ op: "open", id: this.id, ...options });
  }

  /** An event from the thread. */
  receive(msg: FromSocketThread): void {
    if (this.#closed) return;
    switch (msg.ev) {
      case "data":
        // Taken off the message queue: the thread may hand over that much more. Told per MB,
        // not per chunk: ordinary traffic (a PING, a line) then costs one message, not two.
        this.#taken += msg.chunk.length;
        if (this.#taken >= ACK_BYTES) {
          send({ op: "ack", id: this.id, bytes: this.#taken });
          this.#taken = 0;
        }
        this.emit("data", msg.chunk);
        break;
      case "error":
        this.emit("error", Object.assign(new Error(msg.message), { code: msg.code }));
        break;
      case "close":
        this.#closed = true;
        open.delete(this.id);
        this.emit("close");
        if (open.size === 0 && worker) {
          worker.terminate();
          worker = undefined;
          callbacks.clear();
        }
        break;
      case "connect":
        this.localPort = msg.localPort;
        this.emit("connect");
        break;
      case "secureConnect":
      case "timeout":
        this.emit(msg.ev);
        break;
    }
  }

  write(data: string, cb?: () => void): boolean {
    if (this.#closed) {
      if (cb) queueMicrotask(cb);
      return false;
    }
    let id: number | undefined;
    if (cb) callbacks.set(id = nextCb++, cb);
    send({ op: "write", id: this.id, data, cb: id });
    return true;
  }

  end(): void {
    if (!this.#closed) send({ op: "end", id: this.id });
  }

  destroy(): void {
    if (!this.#closed) send({ op: "destroy", id: this.id });
  }

  pause(): void {
    if (!this.#closed) send({ op: "pause", id: this.id });
  }

  resume(): void {
    if (!this.#closed) send({ op: "resume", id: this.id });
  }
}
