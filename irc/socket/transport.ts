/**
 * The socket of a connection's IRC client (irc/engine/client.ts): a line may be at most MAX_LINE
 * bytes (one past it drops the connection, so a hostile 20 MB line costs nothing), and the
 * connection can be held to checked addresses.
 *
 * Reading is decoupled from processing. A server gives a slow reader only a few MB of buffer
 * before dropping it (and every line still in flight), so during a burst the socket must keep
 * being drained while the lines are stored (docs/performance.md, "IRC bursts"). The socket lives
 * on the IRC socket thread (irc/socket/thread.ts), which reads whatever this thread is doing; here
 * whole chunks are decoded and split at once into a bounded queue, which is handed to the
 * connection's handlers in slices between turns of the event loop. Lines already read are still
 * processed when the server then closes.
 */
import { EventEmitter } from "node:events";
import net from "node:net";
import { TransportRefusal } from "./target.ts";
import { idleGc } from "../../lib/idle_gc.ts";
import { ThreadSocket } from "./thread.ts";
import { nextTurn } from "../../lib/next_turn.ts";
import { log } from "../../lib/log.ts";
import { ownString } from "../../lib/own_string.ts";
import { ircLines } from "../../lib/metrics.ts";
import { ircLine, type IrcMessage as Message, parseMessage } from "../protocol/message.ts";
import { linesText } from "../protocol/text.ts";

/** Longest line accepted from a server, CR LF included (IRC's own limit is 512, tags 8191). */
const MAX_LINE = 8192;

/**
 * Most lines read but not yet processed; past it (or READ_QUEUE_BYTES) reading pauses.
 *
 * @internal test seam
 */
export const READ_QUEUE_LINES = 200_000;
/** Most characters read but not yet processed (about bytes: IRC is mostly ASCII). */
const READ_QUEUE_BYTES = 64 * 1024 * 1024;
/**
 * Lines handed over per slice; the socket is read between slices. Counted in lines,
 * not time: on a loaded machine a slice measured in wall time holds almost no CPU time.
 */
const SLICE_LINES = 256;
/**
 * Most lines handed over and not yet recorded (the consumer's backlog, `LineSink.room`) before
 * the next slice is held back. Recording may wait on the store (PostgreSQL's round trips): the
 * lines then stay in this bounded queue, and past its bound the socket pauses, instead of piling
 * up unbounded in the consumer.
 */
const MAX_BACKLOG = 4 * SLICE_LINES;

/**
 * A server's `PING <token>`: most servers send it bare, some with their name as the source or
 * with tags.
 */
function isPing(line: string): boolean {
  let at = 0;
  // Past the tags and the source; a line without the space after them has `at` back at 0.
  if (line.charCodeAt(at) === 64 /* @ */) at = line.indexOf(" ") + 1;
  if (line.charCodeAt(at) === 58 /* : */) at = line.indexOf(" ", at) + 1;
  return line.charCodeAt(at) === 80 /* P */ && line.startsWith("PING ", at);
}

/** Where the socket connects. */
export interface SocketTarget {
  host: string;
  port: number;
  tls?: boolean;
  rejectUnauthorized?: boolean;
}

/** Where each line the transport reads goes, in the server's order, read once. */
export interface LineSink {
  /**
   * Sees each line first and returns true when it took the line; a line it did not take (one of
   * registration's) is emitted as "line" to the client.
   */
  take(m: Message): boolean;
  /**
   * Undefined while the consumer's backlog (lines handed over and not yet processed, see
   * MAX_BACKLOG) is under `max`, else a promise of when it is: a held queue waits to be woken.
   */
  room(max: number): Promise<void> | undefined;
}

/** The socket's limits, and where its lines go. */
export interface SocketSettings {
  /** The connection's client certificate and key (PEM), presented on TLS. */
  cert?: { cert: string; key: string };
  /** Seconds without any data from the server after which the connection is dropped. */
  idleTimeout?: number;
  /** Seconds of silence after which the socket thread sends the server a PING (0: never). */
  keepalive?: number;
  /** Told when the read queue is full (once per time, until it has room again). */
  queueFull?: (lines: number) => void;
  /** Resolves and checks the host, returning the address to connect to (throws to refuse). */
  address?: (host: string) => Promise<string>;
  /** Where the lines go; without one, every line is emitted as "line". */
  lines?: LineSink;
  /**
   * Told of the connection's ports and the server's address once connected (the ident server
   * answers for it); what it returns is called when the socket closes.
   */
  connected?: (address: string, localPort: number, remotePort: number) => () => void;
}

/**
 * A socket of lines with a bounded buffer. Emits "open" (connected, after TLS's handshake), "line"
 * (a line the sink did not take) and "close" (with the error, if any, once every line read is
 * processed).
 */
export class LineTransport extends EventEmitter {
  #options: SocketTarget;
  #settings: SocketSettings;
  #socket: ThreadSocket | undefined;
  #connected = false;
  #error: Error | undefined;
  /** Bytes of a line still waiting for its newline. */
  #partial: Uint8Array[] = [];
  #partialBytes = 0;
  /** Lines read, not yet handed over: `#queue[#head...]`. */
  #queue: string[] = [];
  #head = 0;
  #queuedChars = 0;
  /** A drain is scheduled; it runs only while this is the same object (cleared on reset). */
  #drainTurn: object | undefined;
  /** A backlog is being worked off (told to idleGc, which collects once every burst is over). */
  #burst = false;
  /** Reading is paused because the queue is full. */
  #paused = false;
  /** When the server last sent anything (ms since the epoch; 0 before it did). */
  lastRead = 0;
  /** The socket closed; "close" is emitted once the queue is processed. */
  #closedWith: Error | false | undefined;
  /** Bumped on every connect and dispose, so a late DNS answer knows it is stale. */
  #generation = 0;
  /** The address check of the current connect is still running. */
  #resolving = false;
  /** Lines whose handler threw (dropped), to log the first and then every 1,000th. */
  #unparsed = 0;

  constructor(options: SocketTarget, settings: SocketSettings = {}) {
    super();
    this.#options = options;
    this.#settings = settings;
  }

  writeLine(line: string, cb?: () => void): void {
    if (this.#socket && this.#connected) {
      ircLines.out++;
      this.#socket.write(line + "\r\n", cb);
    } else if (cb) queueMicrotask(cb);
  }

  connect(): void {
    this.disposeSocket();
    const generation = ++this.#generation;
    this.#error = undefined;
    this.#partial = [];
    this.#partialBytes = 0;
    this.#clearQueue();
    const o = this.#options;
    const check = this.#settings.address ?? ((host: string) => Promise.resolve(host));
    this.#resolving = true;
    check(o.host).then((address) => {
      if (generation !== this.#generation) return;
      this.#resolving = false;
      this.#open(address);
    }, (err) => {
      if (generation !== this.#generation) return;
      this.#resolving = false;
      this.emit("close", err instanceof Error ? err : new Error(String(err)));
    });
  }

  #open(address: string): void {
    const o = this.#options;
    const p = this.#settings;
    // After `keepalive` of silence the socket thread pings the server; a live one answers,
    // so a silence of `idleTimeout` means it is gone. (A timer reset on every line would be too
    // dear during a burst.)
    const socket = new ThreadSocket({
      address,
      port: o.port,
      tls: !!o.tls,
      // The certificate is checked against the name, whatever address it resolved to.
      servername: o.tls && !net.isIP(o.host) ? o.host : undefined,
      rejectUnauthorized: o.rejectUnauthorized,
      ...(o.tls && p.cert ? { cert: p.cert.cert, key: p.cert.key } : {}),
      idleMs: (p.idleTimeout ?? 0) * 1000,
      keepaliveMs: (p.keepalive ?? 0) * 1000,
    });
    this.#socket = socket;
    const mine = () => this.#socket === socket;
    let release: (() => void) | undefined;
    socket.on("connect", () => {
      if (!mine()) return;
      this.#connected = true;
      if (socket.localPort) release = p.connected?.(address, socket.localPort, o.port);
      if (!o.tls) this.emit("open");
    });
    if (o.tls) socket.on("secureConnect", () => mine() && this.emit("open"));
    socket.on("data", (chunk: Uint8Array) => mine() && this.#data(chunk));
    socket.on("error", (err: Error) => {
      if (mine()) this.#error ??= err;
    });
    socket.on("timeout", () => mine() && this.close(true));
    socket.on("close", () => {
      release?.();
      release = undefined;
      if (!mine()) return;
      this.#connected = false;
      this.#closedWith = this.#error ?? false;
      this.#scheduleDrain();
    });
  }

  /**
   * Splits incoming bytes into lines and queues them; a line longer than MAX_LINE ends the
   * connection. The bytes up to the chunk's last newline are decoded in one call and split as a
   * string (a decoder call and a copy per line cost more than the rest of reading).
   */
  #data(chunk: Uint8Array): void {
    this.lastRead = Date.now();
    idleGc.read(chunk.length);
    ircLines.reads++;
    let last = chunk.lastIndexOf(0x0a);
    if (last === -1) return this.#keepPartial(chunk, 0);
    // Line lengths are checked in bytes, one native search per line.
    let tooLong = false;
    let start = 0;
    let lineStart = -this.#partialBytes;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      if (nl + 1 - lineStart > MAX_LINE) {
        // The lines before it are still processed.
        tooLong = true;
        last = lineStart - 1;
        break;
      }
      lineStart = start = nl + 1;
    }
    if (last >= 0) {
      let whole = chunk.subarray(0, last + 1);
      if (this.#partialBytes) {
        const joined = new Uint8Array(this.#partialBytes + whole.length);
        let at = 0;
        for (const part of [...this.#partial, whole]) {
          joined.set(part, at);
          at += part.length;
        }
        whole = joined;
        this.#partial = [];
        this.#partialBytes = 0;
      }
      // Each line ends in "\n", which a bad UTF-8 sequence never swallows: the parts are the lines.
      const text = linesText(whole);
      const lines = text.split("\n");
      lines.pop(); // the empty string after the last newline
      this.#enqueue(lines, text.length);
    }
    if (tooLong) return this.#tooLong();
    this.#keepPartial(chunk, last + 1);
  }

  #keepPartial(chunk: Uint8Array, from: number): void {
    if (from >= chunk.length) return;
    this.#partialBytes += chunk.length - from;
    if (this.#partialBytes > MAX_LINE) return this.#tooLong();
    // A copy: the chunk's buffer may be reused by the socket.
    this.#partial.push(chunk.slice(from));
  }

  #enqueue(lines: string[], chars: number): void {
    ircLines.in += lines.length;
    // Live traffic (nothing waiting, a chunk of a few lines) is handled at once: a timer turn
    // would only add latency. Only a backlog is handed over in slices.
    const live = this.#head === this.#queue.length && this.#drainTurn === undefined &&
      lines.length <= SLICE_LINES;
    if (lines.some(isPing)) {
      // The server's PING is answered here, the one place for it, as the chunk arrives: behind
      // a backlog (seconds of a burst, or held while the store is slow) it would wait its turn,
      // and a server drops a client that does not answer in time. Once per chunk (the last one;
      // a chunk of many PINGs is not a server keeping time, and each answer is a write).
      let ping = "";
      lines = lines.filter((line) => {
        if (!isPing(line)) return true;
        chars -= line.length + 1;
        ping = line;
        return false;
      });
      // The server's token as it sent it, read by the one parser (taken out here, the line is
      // parsed nowhere else).
      const token = parseMessage(ping.replace(/\r$/, ""))?.params[0] ?? "";
      try {
        this.writeLine(ircLine("PONG", token));
      } catch (err) {
        // A token no line can carry (a NUL) goes unanswered.
        log.debug("irc ping not answered", { error: String(err) });
      }
    }
    if (this.#head === this.#queue.length) {
      this.#queue = lines;
      this.#head = 0;
    } else {
      for (const line of lines) this.#queue.push(line);
    }
    this.#queuedChars += chars;
    if (
      !this.#paused &&
      (this.#queue.length - this.#head >= READ_QUEUE_LINES ||
        this.#queuedChars >= READ_QUEUE_BYTES)
    ) {
      // The server's buffers take the rest; it may drop the connection if they fill too.
      this.#paused = true;
      this.#socket?.pause();
      this.#settings.queueFull?.(this.#queue.length - this.#head);
    }
    if (live) this.#drain();
    else this.#scheduleDrain();
  }

  /** Lines read and not yet processed. */
  get queuedLines(): number {
    return this.#queue.length - this.#head;
  }

  #scheduleDrain(): void {
    if (!this.#burst) {
      this.#burst = true;
      idleGc.started();
    }
    if (this.#drainTurn) return;
    const turn = this.#drainTurn = {};
    const drain = () => this.#drainTurn === turn && this.#drain();
    // A backlog goes on in the next turn that lets the socket thread's chunks in
    // (lib/next_turn.ts: without a timer's sleep, I/O let through often).
    nextTurn(drain);
  }

  #burstOver(): void {
    if (!this.#burst) return;
    this.#burst = false;
    idleGc.ended();
  }

  /** Hands a slice of queued lines over; goes on after the next socket read. */
  #drain(): void {
    this.#drainTurn = undefined;
    const sink = this.#settings.lines;
    const room = sink?.room(MAX_BACKLOG);
    if (room) {
      const turn = this.#drainTurn = {};
      room.then(() => this.#drainTurn === turn && this.#drain());
      return;
    }
    const generation = this.#generation;
    const end = Math.min(this.#queue.length, this.#head + SLICE_LINES);
    while (this.#head < end) {
      const line = this.#queue[this.#head++];
      this.#queuedChars -= line.length + 1;
      // Read once, here: the handlers, registration and the bouncer's relay get this message.
      // Parsed from a copy of its own: a string kept from it (a name, a topic, a row held for
      // the disk) then holds its line, not the whole read (hundreds of KB) it came in.
      const m = parseMessage(
        ownString(line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line),
      );
      if (!m) continue;
      if (sink?.take(m)) continue;
      try {
        this.emit("line", m);
      } catch (err) {
        // A handler that trusts a line's shape too far must not end the whole process: the line
        // is dropped instead.
        if (this.#unparsed++ % 1000 === 0) {
          log.warn("irc line dropped: its handler failed", {
            host: this.#options.host,
            line: line.slice(0, 200),
            error: String(err),
            dropped: this.#unparsed,
          });
        }
      }
      if (generation !== this.#generation) return; // a handler dropped the connection
    }
    if (
      this.#paused && this.queuedLines < READ_QUEUE_LINES / 2 &&
      this.#queuedChars < READ_QUEUE_BYTES / 2
    ) {
      this.#paused = false;
      this.#socket?.resume();
    }
    if (this.#head < this.#queue.length) return this.#scheduleDrain();
    this.#queue = [];
    this.#head = 0;
    this.#queuedChars = 0;
    this.#burstOver();
    if (this.#closedWith !== undefined) {
      const err = this.#closedWith;
      this.#closedWith = undefined;
      this.emit("close", err);
    }
  }

  #clearQueue(): void {
    this.#drainTurn = undefined;
    this.#queue = [];
    this.#head = 0;
    this.#queuedChars = 0;
    this.#paused = false;
    this.#closedWith = undefined;
    this.#burstOver();
  }

  #tooLong(): void {
    this.#partial = [];
    this.#partialBytes = 0;
    this.#error = new TransportRefusal(
      `The server sent a line longer than ${MAX_LINE} bytes; disconnected.`,
      false,
    );
    this.#socket?.destroy();
  }

  close(force?: boolean): void {
    const socket = this.#socket;
    if (!socket) {
      // Still resolving: give up on it and say so the way a socket would.
      if (this.#resolving) {
        this.#resolving = false;
        this.#generation++;
        queueMicrotask(() => this.emit("close", false));
      }
      return;
    }
    if (force || !this.#connected) socket.destroy();
    else socket.end();
  }

  disposeSocket(): void {
    this.#generation++;
    this.#resolving = false;
    this.#clearQueue();
    const socket = this.#socket;
    this.#socket = undefined;
    this.#connected = false;
    socket?.removeAllListeners();
    socket?.on("error", () => {}); // late errors of a dropped socket are of no interest
    socket?.destroy();
  }
}
