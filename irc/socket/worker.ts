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
import tls from "node:tls";
import type { FromSocketThread, ToSocketThread } from "./protocol.ts";
import { collectAndTrim } from "../../lib/malloc_trim.ts";
import { IdleCollector } from "../../lib/idle_gc.ts";
import { ReadBatcher } from "./batcher.ts";
import { nextReadSize, READ_MIN } from "./read_size.ts";

/** Most bytes handed over and not yet taken by the main thread, per socket. */
const MAX_UNTAKEN = 64 * 1024 * 1024;

/** What the thread does with a socket, whichever kind it is. */
interface Stream {
  write(data: string, cb?: () => void): unknown;
  end(): unknown;
  destroy(): unknown;
  pause(): unknown;
  resume(): unknown;
}

/** A socket's events, as node:net names them. */
interface Events {
  connect(localPort?: number): void;
  data(chunk: Uint8Array): void;
  error(err: Error & { code?: string }): void;
  timeout(): void;
  close(): void;
}

/**
 * A plain TCP socket on Deno's own API, which gives the memory of a burst back once it is over
 * (node:net keeps much of it allocated in this thread; docs/performance.md, "IRC bursts"). TLS
 * stays on node:tls, which can skip certificate checks per connection.
 */
class PlainSocket implements Stream {
  #conn: Deno.TcpConn | undefined;
  #connected: Promise<Deno.TcpConn | undefined>;
  #events: Events;
  #idleMs: number;
  #keepaliveMs: number;
  #idle: ReturnType<typeof setTimeout> | undefined;
  #lastData = 0;
  /** A keepalive PING was sent in the current silence. */
  #pinged = false;
  #paused = false;
  #wake: (() => void) | undefined;
  #writing: Promise<unknown> = Promise.resolve();
  #destroyed = false;
  #closed = false;

  constructor(
    address: string,
    port: number,
    idleMs: number,
    keepaliveMs: number,
    events: Events,
  ) {
    this.#events = events;
    this.#idleMs = idleMs;
    this.#keepaliveMs = keepaliveMs;
    this.#connected = Deno.connect({ hostname: address, port }).then((conn) => {
      if (this.#destroyed) {
        conn.close();
        return undefined;
      }
      return this.#conn = conn;
    }, (err) => {
      if (!this.#destroyed) events.error(err);
      return undefined;
    });
    this.#read();
  }

  async #read(): Promise<void> {
    const conn = await this.#connected;
    try {
      if (!conn) return;
      this.#events.connect((conn.localAddr as Deno.NetAddr).port);
      this.#lastData = performance.now();
      this.#armIdle(this.#nextCheck());
      let buf = new Uint8Array(READ_MIN);
      for (;;) {
        while (this.#paused && !this.#destroyed) await new Promise<void>((r) => this.#wake = r);
        if (this.#destroyed) return;
        const n = await conn.read(buf);
        if (n === null) return;
        const size = nextReadSize(buf.length, n);
        this.#lastData = performance.now();
        this.#pinged = false;
        if (this.#idle === undefined) this.#armIdle(this.#nextCheck()); // after a silence was told
        // A copy of the bytes read: it is transferred, and the read buffer is used again.
        this.#events.data(buf.slice(0, n));
        if (size !== buf.length) buf = new Uint8Array(size);
      }
    } catch (err) {
      if (!this.#destroyed) this.#events.error(err as Error);
    } finally {
      this.#close();
    }
  }

  /**
   * Silence from the server for idleMs is told once per silence (node's socket timeout). One
   * timer that looks at the last read when it fires, not a timer set again for every read.
   */
  #armIdle(ms: number): void {
    if (this.#idleMs <= 0 && this.#keepaliveMs <= 0) return;
    this.#idle = setTimeout(() => {
      const silent = performance.now() - this.#lastData;
      if (this.#idleMs > 0 && silent >= this.#idleMs) {
        this.#idle = undefined;
        return this.#events.timeout();
      }
      if (this.#keepaliveMs > 0 && !this.#pinged && silent >= this.#keepaliveMs) {
        this.#pinged = true;
        this.write("PING :keepalive\r\n");
      }
      this.#armIdle(this.#nextCheck());
    }, ms);
  }

  /** Ms until the current silence calls for a keepalive or is told as a timeout. */
  #nextCheck(): number {
    const silent = performance.now() - this.#lastData;
    const due = [
      ...(this.#keepaliveMs > 0 && !this.#pinged ? [this.#keepaliveMs] : []),
      ...(this.#idleMs > 0 ? [this.#idleMs] : []),
    ];
    return Math.max(0, Math.min(...due) - silent);
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#idle);
    try {
      this.#conn?.close();
    } catch { /* why: already closed, nothing left to close */ }
    this.#events.close();
  }

  write(data: string, cb?: () => void): void {
    this.#writing = this.#writing.then(async () => {
      const conn = await this.#connected;
      if (!conn || this.#destroyed) return;
      const bytes = encoder.encode(data);
      for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
    }).catch((err) => {
      if (this.#destroyed) return;
      this.#events.error(err);
      this.destroy();
      // Told as done either way, as node:net calls a write's callback with its error.
    }).finally(() => cb?.());
  }

  /** Half-closes once everything written so far is sent; reading goes on until the server closes. */
  end(): void {
    this.#writing = this.#writing.then(async () => {
      const conn = await this.#connected;
      if (conn && !this.#destroyed) await conn.closeWrite();
    }).catch(() => this.destroy());
  }

  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#wake?.();
    // Ends a read under way (it then fails, unreported); a connection still being made is
    // closed when it comes. Either way the read loop ends and tells "close".
    try {
      this.#conn?.close();
    } catch { /* why: already closed, nothing left to close */ }
    this.#conn = undefined;
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    this.#wake?.();
    this.#wake = undefined;
  }
}

const encoder = new TextEncoder();

interface Open {
  socket: Stream;
  untaken: number;
  /** Paused because the main thread asked (its line queue is full). */
  held: boolean;
  /** Paused because too much waits untaken. */
  full: boolean;
}

const sockets = new Map<number, Open>();

/**
 * After a burst (this much read) and a quiet second, a memory-reducing collection gives back the
 * young generation the burst grew, as lib/idle_gc.ts does on the main thread (no gap between
 * collections here: one comes only after megabytes read).
 */
const COLLECT_AFTER_BYTES = 4 * 1024 * 1024;
const collector = new IdleCollector(collectAndTrim, 1000, 0);
let readSinceDue = 0;

function post(msg: FromSocketThread, transfer?: Transferable[]): void {
  self.postMessage(msg, transfer ? { transfer } : undefined);
}

function open(m: Extract<ToSocketThread, { op: "open" }>): void {
  const { id } = m;
  const s: Open = { socket: undefined as unknown as Stream, untaken: 0, held: false, full: false };
  sockets.set(id, s);
  const batch = new ReadBatcher((chunk) => post({ id, ev: "data", chunk }, [chunk.buffer]));
  const events: Events = {
    connect: (localPort) => post({ id, ev: "connect", localPort }),
    data(chunk: Uint8Array) {
      s.untaken += chunk.length;
      if (s.untaken >= MAX_UNTAKEN && !s.full) {
        s.full = true;
        s.socket.pause();
      }
      batch.push(chunk);
      collector.read();
      if ((readSinceDue += chunk.length) >= COLLECT_AFTER_BYTES) {
        readSinceDue = 0;
        collector.due();
      }
    },
    // What was read before an error or the close is handed over first.
    error(err) {
      batch.flush();
      post({ id, ev: "error", message: err.message, code: err.code });
    },
    timeout: () => post({ id, ev: "timeout" }),
    close() {
      batch.flush();
      if (sockets.get(id) === s) sockets.delete(id);
      post({ id, ev: "close" });
    },
  };
  if (!m.tls) {
    s.socket = new PlainSocket(m.address, m.port, m.idleMs, m.keepaliveMs ?? 0, events);
    return;
  }
  const socket = tls.connect({
    host: m.address,
    port: m.port,
    servername: m.servername,
    rejectUnauthorized: m.rejectUnauthorized,
    ...(m.cert && m.key ? { cert: m.cert, key: m.key } : {}),
  });
  s.socket = socket;
  // node's timeout counts writes as activity too: the silence is measured from the last read.
  let lastRead = performance.now();
  const keepaliveMs = m.keepaliveMs ?? 0;
  if (keepaliveMs > 0 || m.idleMs > 0) socket.setTimeout(keepaliveMs || m.idleMs);
  socket.on("data", () => lastRead = performance.now());
  socket.on("timeout", () => {
    if (m.idleMs > 0 && performance.now() - lastRead >= m.idleMs - 50) events.timeout();
    else if (keepaliveMs > 0) socket.write("PING :keepalive\r\n");
  });
  socket.on("connect", () => events.connect(socket.localPort));
  socket.on("secureConnect", () => post({ id, ev: "secureConnect" }));
  // A copy of its own, so that its buffer can be transferred: the socket's chunk may be a view on
  // a pooled buffer (a Buffer's slice() is a view too), and transferring that would detach the
  // pool under the socket.
  socket.on("data", (chunk: Uint8Array) => events.data(new Uint8Array(chunk)));
  socket.on("error", events.error);
  socket.on("close", events.close);
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
