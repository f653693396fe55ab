/**
 * The socket under irc-framework, in place of its own: a line may be at most MAX_LINE bytes, and
 * the connection can be held to checked addresses. irc-framework's transport buffers a line until
 * its newline arrives, however long, copying the whole buffer per chunk, so one hostile 20 MB line
 * cost hundreds of MB and seconds of CPU; here a line past the limit drops the connection.
 */
import { EventEmitter } from "node:events";
import net from "node:net";
import tls from "node:tls";
import { TransportRefusal } from "./target.ts";

/** Longest line accepted from a server, CR LF included (IRC's own limit is 512, tags 8191). */
export const MAX_LINE = 8192;

/** Options irc-framework passes to its transport, plus Parley's. */
export interface TransportOptions {
  host: string;
  port: number;
  tls?: boolean;
  rejectUnauthorized?: boolean;
  ping_interval?: number;
  ping_timeout?: number;
  /** Resolves and checks the host, returning the address to connect to (throws to refuse). */
  parley_address?: (host: string) => Promise<string>;
}

const decoder = new TextDecoder();

/** An irc-framework transport over node:net / node:tls with a bounded line buffer. */
export class LineTransport extends EventEmitter {
  #options: TransportOptions;
  #socket: net.Socket | undefined;
  #connected = false;
  #error: Error | undefined;
  /** Bytes of a line still waiting for its newline. */
  #partial: Uint8Array[] = [];
  #partialBytes = 0;
  /** Bumped on every connect and dispose, so a late DNS answer knows it is stale. */
  #generation = 0;
  /** The address check of the current connect is still running. */
  #resolving = false;

  constructor(options: TransportOptions) {
    super();
    this.#options = options;
  }

  isConnected(): boolean {
    return this.#connected;
  }

  /** Only UTF-8 (irc-framework's default) is spoken. */
  setEncoding(encoding: string): boolean {
    return /^utf-?8$/i.test(encoding);
  }

  writeLine(line: string, cb?: () => void): void {
    if (this.#socket && this.#connected) this.#socket.write(line + "\r\n", cb);
    else if (cb) queueMicrotask(cb);
  }

  connect(): void {
    this.disposeSocket();
    const generation = ++this.#generation;
    this.#error = undefined;
    this.#partial = [];
    this.#partialBytes = 0;
    const o = this.#options;
    const check = o.parley_address ?? ((host: string) => Promise.resolve(host));
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
    const socket = o.tls
      ? tls.connect({
        host: address,
        port: o.port,
        // The certificate is checked against the name, whatever address it resolved to.
        servername: net.isIP(o.host) ? undefined : o.host,
        rejectUnauthorized: o.rejectUnauthorized,
      })
      : net.connect({ host: address, port: o.port });
    this.#socket = socket;
    const mine = () => this.#socket === socket;
    if ((o.ping_interval ?? 0) > 0 && (o.ping_timeout ?? 0) > 0) {
      socket.setTimeout((o.ping_interval! + o.ping_timeout!) * 1000);
    }
    socket.on("connect", () => {
      if (!mine()) return;
      this.#connected = true;
      this.emit("extra", "raw socket connected", socket);
      if (!o.tls) this.emit("open");
    });
    if (o.tls) socket.on("secureConnect", () => mine() && this.emit("open"));
    socket.on("data", (chunk: Uint8Array) => mine() && this.#data(chunk));
    socket.on("error", (err: Error) => {
      if (mine()) this.#error ??= err;
    });
    socket.on("timeout", () => mine() && this.close(true));
    socket.on("close", () => {
      if (!mine()) return;
      this.#connected = false;
      this.emit("close", this.#error ?? false);
    });
  }

  /** Splits incoming bytes into lines; a line longer than MAX_LINE ends the connection. */
  #data(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      const length = this.#partialBytes + nl + 1 - start;
      if (length > MAX_LINE) return this.#tooLong();
      let line = chunk.subarray(start, nl + 1);
      if (this.#partialBytes) {
        const whole = new Uint8Array(length);
        let at = 0;
        for (const part of [...this.#partial, line]) {
          whole.set(part, at);
          at += part.length;
        }
        line = whole;
        this.#partial = [];
        this.#partialBytes = 0;
      }
      this.emit("line", decoder.decode(line));
      if (!this.#socket) return; // a handler closed the connection
      start = nl + 1;
    }
    if (start < chunk.length) {
      this.#partialBytes += chunk.length - start;
      if (this.#partialBytes > MAX_LINE) return this.#tooLong();
      // A copy: the chunk's buffer may be reused by the socket.
      this.#partial.push(chunk.slice(start));
    }
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
    const socket = this.#socket;
    this.#socket = undefined;
    this.#connected = false;
    socket?.removeAllListeners();
    socket?.on("error", () => {}); // late errors of a dropped socket are of no interest
    socket?.destroy();
  }
}
