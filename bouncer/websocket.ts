/**
 * IRC over WebSocket (the IRCv3 WebSocket spec): one line per frame, without CR LF; text frames
 * with `text.ircv3.net` (or no subprotocol), binary frames with `binary.ircv3.net` (read as UTF-8,
 * a byte that is not becoming U+FFFD, as on a socket). Bounded as a socket is: a frame longer than a line is refused with 417,
 * and a client more than 4 MB behind is closed. What a client sends and the session has not read
 * yet is bounded in bytes (a socket's unread bytes wait in the kernel; a WebSocket's frames wait
 * here): 64 KB before the client is attached, 1 MB after; a frame larger than that closes the
 * socket as it arrives. Deno's upgrade takes no frame size (only `protocol` and `idleTimeout`), so
 * the runtime still assembles a frame of up to 64 MiB before Parley sees it.
 */
import { type ClientTransport, type Incoming, MAX_LINE_BYTES } from "./transport.ts";

/** The subprotocols Parley speaks: text frames, or binary ones. */
const IRC_SUBPROTOCOL = "text.ircv3.net";
export const IRC_BINARY_SUBPROTOCOL = "binary.ircv3.net";
const SUBPROTOCOLS = [IRC_SUBPROTOCOL, IRC_BINARY_SUBPROTOCOL];
/** Both, as an error message names them. */
export const IRC_SUBPROTOCOLS = SUBPROTOCOLS.join(" and ");

/**
 * The subprotocol to answer a client's list with: the first it offers that Parley speaks (the
 * client's order of preference), "" when it offers none, undefined when it offers only others.
 */
export function chooseSubprotocol(offered: string[]): string | undefined {
  if (!offered.length) return "";
  return offered.find((p) => SUBPROTOCOLS.includes(p));
}
const MAX_BUFFERED = 4 * 1024 * 1024;
/** Frames received and not yet read, before the socket is closed for flooding. */
const MAX_WAITING = 1000;
/**
 * Bytes received and not yet read before the client is attached.
 *
 * @internal test seam
 */
export const UNREAD_BEFORE_LOGIN = 64 * 1024;
/**
 * Bytes received and not yet read once the client is attached.
 *
 * @internal test seam
 */
export const UNREAD_AFTER_LOGIN = 1024 * 1024;
/** What an empty frame costs while it waits (its record), counted against the bound. */
const FRAME_COST = 64;

/** The login throttle's key for a client whose page is not Parley's: its failures count apart. */
function otherOriginKey(address: string): string {
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
  #decoder = new TextDecoder();

  constructor(
    socket: WebSocket,
    readonly peer: string,
    otherOrigin = false,
    /** It speaks binary.ircv3.net (the server's socket does not say which it answered). */
    readonly binary = false,
  ) {
    this.address = otherOrigin ? otherOriginKey(peer) : peer;
    this.#socket = socket;
    socket.binaryType = "arraybuffer";
    socket.onmessage = (ev) => {
      if (this.#ended) return;
      // Each subprotocol has its kind of frame.
      const binary = this.binary;
      if (binary !== ev.data instanceof ArrayBuffer) return this.close();
      const size = binary ? (ev.data as ArrayBuffer).byteLength : (ev.data as string).length;
      // Checked before the frame is looked at further: one over the bound ends the client.
      if (size > this.#limit || this.#waiting.length >= MAX_WAITING) return this.close();
      const data = binary ? this.#decoder.decode(ev.data as ArrayBuffer) : ev.data as string;
      const text = data.replace(/\r?\n$/, "");
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
    // A string is sent as UTF-8 in a text frame: never bytes that are not UTF-8.
    this.#socket.send(this.binary ? this.#encoder.encode(line) : line);
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
