/**
 * The IRC socket thread: it owns every IRC socket and reads them as fast as the servers send,
 * whatever the main thread is doing, and hands the bytes over by message (transferred, not
 * copied). A server drops a reader that lags a few MB behind (SendQ), so reading must not wait
 * for the main thread's turn: on a busy machine it gets a fraction of a core, and this thread
 * gets a share of its own (docs/performance.md, "IRC bursts").
 *
 * Bounded: bytes sent and not yet taken by the main thread are counted per socket; past
 * MAX_UNTAKEN the socket is paused (the kernel's and then the server's buffers take the rest).
 */
/// <reference lib="deno.worker" />
import net from "node:net";
import tls from "node:tls";
import type { FromSocketThread, ToSocketThread } from "./socket_protocol.ts";
import { trimMalloc } from "../lib/malloc_trim.ts";

/** Most bytes handed over and not yet taken by the main thread, per socket. */
const MAX_UNTAKEN = 64 * 1024 * 1024;

interface Open {
  socket: net.Socket;
  untaken: number;
  /** Paused because the main thread asked (its line queue is full). */
  held: boolean;
  /** Paused because too much waits untaken. */
  full: boolean;
}

const sockets = new Map<number, Open>();

/**
 * After a burst (this much read since the last collection) and a quiet second, a memory-reducing
 * collection gives back the young generation the burst grew (as lib/idle_gc.ts does on the main
 * thread, which also trims the C allocator's arenas for every thread).
 */
const COLLECT_AFTER_BYTES = 4 * 1024 * 1024;
const QUIET_MS = 1000;
let readSinceCollect = 0;
let lastRead = 0;
let collectTimer: ReturnType<typeof setTimeout> | undefined;

function collectWhenQuiet(): void {
  collectTimer = undefined;
  const wait = lastRead + QUIET_MS - performance.now();
  if (wait > 0) {
    collectTimer = setTimeout(collectWhenQuiet, wait);
    return;
  }
  readSinceCollect = 0;
  const gc = (globalThis as { gc?: (options: object) => void }).gc;
  gc?.({ type: "major", execution: "sync", flavor: "last-resort" });
  trimMalloc();
}

function post(msg: FromSocketThread, transfer?: Transferable[]): void {
  self.postMessage(msg, transfer ? { transfer } : undefined);
}

function open(m: Extract<ToSocketThread, { op: "open" }>): void {
  const { id } = m;
  const socket = m.tls
    ? tls.connect({
      host: m.address,
      port: m.port,
      servername: m.servername,
      rejectUnauthorized: m.rejectUnauthorized,
    })
    : net.connect({ host: m.address, port: m.port });
  const s: Open = { socket, untaken: 0, held: false, full: false };
  sockets.set(id, s);
  if (m.idleMs > 0) socket.setTimeout(m.idleMs);
  socket.on("connect", () => post({ id, ev: "connect" }));
  if (m.tls) socket.on("secureConnect", () => post({ id, ev: "secureConnect" }));
  socket.on("data", (chunk: Uint8Array) => {
    // A copy of its own, so that its buffer can be transferred: the socket's chunk may be a view
    // on a pooled buffer (a Buffer's slice() is a view too), and transferring that would detach
    // the pool under the socket.
    const copy = new Uint8Array(chunk);
    s.untaken += copy.length;
    if (s.untaken >= MAX_UNTAKEN && !s.full) {
      s.full = true;
      socket.pause();
    }
    post({ id, ev: "data", chunk: copy }, [copy.buffer]);
    readSinceCollect += copy.length;
    lastRead = performance.now();
    if (readSinceCollect >= COLLECT_AFTER_BYTES) {
      collectTimer ??= setTimeout(collectWhenQuiet, QUIET_MS);
    }
  });
  socket.on("error", (err: Error & { code?: string }) => {
    post({ id, ev: "error", message: err.message, code: err.code });
  });
  socket.on("timeout", () => post({ id, ev: "timeout" }));
  socket.on("close", () => {
    if (sockets.get(id) === s) sockets.delete(id);
    post({ id, ev: "close" });
  });
}

function resumeIfFree(s: Open): void {
  if (s.full && s.untaken < MAX_UNTAKEN / 2) s.full = false;
  if (!s.full && !s.held) s.socket.resume();
}

self.onmessage = (e: MessageEvent<ToSocketThread>) => {
  const m = e.data;
  if (m.op === "open") return open(m);
  const s = sockets.get(m.id);
  if (!s) return;
  switch (m.op) {
    case "write": {
      const cb = m.cb;
      s.socket.write(
        m.data,
        cb === undefined ? undefined : () => post({ id: m.id, ev: "written", cb }),
      );
      break;
    }
    case "end":
      s.socket.end();
      break;
    case "destroy":
      s.socket.destroy();
      break;
    case "ack":
      s.untaken -= m.bytes;
      if (s.full) resumeIfFree(s);
      break;
    case "pause":
      s.held = true;
      s.socket.pause();
      break;
    case "resume":
      s.held = false;
      resumeIfFree(s);
      break;
  }
};
