/**
 * IRC over WebSocket (the IRCv3 WebSocket spec, subprotocol `text.ircv3.net`): one line per text
 * frame, without CR LF. Bounded as a socket is: a frame longer than a line is refused with 417,
 * and a client more than 4 MB behind is closed. What a client sends and the session has not read
 * yet is bounded in bytes (a socket's unread bytes wait in the kernel; a WebSocket's frames wait
 * here): 64 KB before the client is attached, 1 MB after; a frame larger than that closes the
 * socket as it arrives. Deno's upgrade takes no frame size (only `protocol` and `idleTimeout`), so
 * the runtime still assembles a frame of up to 64 MiB before Parley sees it.
 */
import { type ClientTransport, type Incoming, MAX_LINE_BYTES } from "./transport.ts";

/** The subprotocol Parley speaks (text frames). */
export const IRC_SUBPROTOCOL = "text.ircv3.net";
const MAX_BUFFERED = 4 * 1024 * 1024;
/** Frames received and not yet read, before the socket is closed for flooding. */
const MAX_WAITING = 1000;
/** Bytes received and not yet read, before and after the client is attached. */
export const UNREAD_BEFORE_LOGIN = 64 * 1024;
export const UNREAD_AFTER_LOGIN = 1024 * 1024;
/** What an empty frame costs while it waits (its record), counted against the bound. */
const FRAME_COST = 64;

/** The login throttle's key for a client whose page is not Parley's: its failures count apart. */
export function otherOriginKey(address: string): string {
  return `${address} (origin other)`;
}

export class WebSocketTransport implements ClientTransport {
  /** The login throttle's key: the peer, or the peer marked as another origin's. */
  readonly address: string;
  #socket: WebSocket;
  #waiting: { item: Incoming; bytes: number }[] = [];
  #unread = 0;
  #limit = UNREAD_BEFORE_LOGIN;
  #wake?: () => void;
  #ended = false;
  #encoder = new TextEncoder();

  constructor(socket: WebSocket, readonly peer: string, otherOrigin = false) {
    this.address = otherOrigin ? otherOriginKey(peer) : peer;
    this.#socket = socket;
    socket.onmessage = (ev) => {
      if (this.#ended) return;
      if (typeof ev.data !== "string") return this.close(); // binary frames: not this subprotocol
      // Checked before the frame is looked at further: one over the bound ends the client.
      if (ev.data.length > this.#limit || this.#waiting.length >= MAX_WAITING) return this.close();
      const text = ev.data.replace(/\r?\n$/, "");
      const bytes = text.length > MAX_LINE_BYTES ? Infinity : this.#encoder.encode(text).length;
      const item: Incoming = bytes > MAX_LINE_BYTES ? { tooLong: true } : { line: text };
      const cost = FRAME_COST + (bytes > MAX_LINE_BYTES ? 0 : bytes);
      if (this.#unread + cost > this.#limit) return this.close();
      this.#unread += cost;
      this.#waiting.push({ item, bytes: cost });
      this.#wake?.();
    };
    socket.onclose = () => {
      this.#ended = true;
      this.#wake?.();
    };
    socket.onerror = () => socket.onclose?.(new CloseEvent("close"));
  }

  /** The client is attached: it may have more unread. */
  attached(): void {
    this.#limit = UNREAD_AFTER_LOGIN;
  }

  async *lines(): AsyncIterable<Incoming> {
    while (true) {
      const next = this.#waiting.shift();
      if (next) {
        this.#unread -= next.bytes;
        const item = next.item;
        // A frame holding several lines (some clients join them) is read line by line.
        if ("line" in item && item.line.includes("\n")) {
          for (const l of item.line.split(/\r?\n/)) if (l) yield { line: l };
        } else yield item;
        continue;
      }
      if (this.#ended) return;
      await new Promise<void>((r) => this.#wake = r);
      this.#wake = undefined;
    }
  }

  write(line: string): boolean {
    if (this.#socket.readyState !== WebSocket.OPEN) return false;
    if (this.#socket.bufferedAmount > MAX_BUFFERED) {
      this.close();
      return false;
    }
    this.#socket.send(line);
    return true;
  }

  close(): void {
    const s = this.#socket;
    if (s.readyState === WebSocket.OPEN) s.close(1000);
    // Refused before the upgrade's answer went out: closed as soon as it is open.
    else if (s.readyState === WebSocket.CONNECTING) s.onopen = () => s.close(1000);
    this.#ended = true;
    this.#waiting = [];
    this.#unread = 0;
    this.#wake?.();
  }
}
