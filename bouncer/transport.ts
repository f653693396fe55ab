/**
 * A client's socket as lines: read with a bound on each line's length (tags and the rest, as
 * message-tags allows), written through a bounded queue, so a client that sends without end or
 * stops reading costs a fixed amount of memory.
 */
import { MAX_BODY_BYTES, MAX_TAG_BYTES } from "../irc/protocol/message.ts";
import { lineText } from "../irc/protocol/text.ts";

/** The longest line read, CR LF included. */
export const MAX_LINE_BYTES = MAX_TAG_BYTES + MAX_BODY_BYTES;
/** Bytes queued for a client that does not read before it is dropped. */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

/** What a session reads: a line, or notice of one too long (dropped). */
export type Incoming = { line: string } | { tooLong: true };

/** A client's connection, whatever carries it (TCP, TLS, WebSocket). */
export interface ClientTransport {
  /** The client's address (for the login throttle and the logs). */
  readonly address: string;
  /** The network address, when `address` is more than that (a WebSocket from another origin). */
  readonly peer?: string;
  /** Over TLS: the client may log in with a certificate (SASL EXTERNAL). */
  readonly tls?: boolean;
  /** The DER of the TLS client certificate the client presented, if any. */
  readonly certificate?: Uint8Array;
  /** Told once the client is attached (a logged-in client may have more unread). */
  attached?(): void;
  /** The lines the client sends, until it closes. */
  lines(): AsyncIterable<Incoming>;
  /** Queues a line (CR LF added); false when the client is too far behind and was closed. */
  write(line: string): boolean;
  close(): void;
}

/** What a socket transport reads and writes: Deno's TCP connection, or a TLS one (tls_reload.ts). */
export type SocketConn = Pick<Deno.Conn, "readable" | "write" | "close" | "remoteAddr"> & {
  readonly tls?: boolean;
  readonly certificate?: Uint8Array;
};

/** A TCP (or TLS) connection as a ClientTransport. */
export class SocketTransport implements ClientTransport {
  readonly address: string;
  readonly tls: boolean;
  #conn: SocketConn;
  #queue: Uint8Array[] = [];
  #queued = 0;
  #writing = false;
  #closed = false;
  #encoder = new TextEncoder();

  constructor(conn: SocketConn) {
    this.#conn = conn;
    this.tls = conn.tls === true;
    const addr = conn.remoteAddr as Deno.NetAddr;
    this.address = addr.hostname ?? "unknown";
  }

  /** The client's TLS certificate, once its handshake is done (it is, once a line came). */
  get certificate(): Uint8Array | undefined {
    return this.#conn.certificate;
  }

  async *lines(): AsyncIterable<Incoming> {
    const buf = new Uint8Array(MAX_LINE_BYTES);
    let len = 0;
    let skipping = false;
    const reader = this.#conn.readable.getReader();
    try {
      while (!this.#closed) {
        const { value, done } = await reader.read();
        if (done || !value) return;
        let start = 0;
        for (let i = 0; i < value.length; i++) {
          if (value[i] !== 10) continue;
          const part = value.subarray(start, i);
          start = i + 1;
          if (skipping || len + part.length > MAX_LINE_BYTES) {
            skipping = false;
            len = 0;
            yield { tooLong: true };
            continue;
          }
          buf.set(part, len);
          let end = len + part.length;
          len = 0;
          if (end > 0 && buf[end - 1] === 13) end--;
          if (end > 0) yield { line: lineText(buf.subarray(0, end)) };
        }
        const rest = value.subarray(start);
        if (skipping) continue;
        if (len + rest.length > MAX_LINE_BYTES) {
          // The line is already too long: forget what was read, skip to its end.
          skipping = true;
          len = 0;
        } else {
          buf.set(rest, len);
          len += rest.length;
        }
      }
    } catch {
      // why: reset by the peer, or closed here: either way the session ends, nothing is unread
    } finally {
      reader.releaseLock();
    }
  }

  write(line: string): boolean {
    if (this.#closed || this.#closing) return false;
    const bytes = this.#encoder.encode(line + "\r\n");
    this.#queued += bytes.length;
    if (this.#queued > MAX_QUEUED_BYTES) {
      this.#shut();
      return false;
    }
    this.#queue.push(bytes);
    if (!this.#writing) this.#flush();
    return true;
  }

  async #flush(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#queue.length && !this.#closed) {
        const chunk = joinAll(this.#queue.splice(0));
        this.#queued -= chunk.length;
        let off = 0;
        while (off < chunk.length) off += await this.#conn.write(chunk.subarray(off));
      }
    } catch {
      this.#shut();
    } finally {
      this.#writing = false;
      if (this.#closing && !this.#queue.length) this.#shut();
    }
  }

  #closing = false;

  /** Closes once what is queued is written (an ERROR line reaches the client first). */
  close(): void {
    if (this.#closed || this.#closing) return;
    this.#closing = true;
    if (!this.#writing) this.#shut();
  }

  #shut(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch {
      // why: already closed, which is what was asked
    }
  }
}

function joinAll(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}
