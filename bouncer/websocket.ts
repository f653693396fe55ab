/**
 * IRC over WebSocket (the IRCv3 WebSocket spec, subprotocol `text.ircv3.net`): one line per text
 * frame, without CR LF. Bounded as a socket is: a frame longer than a line is refused with 417,
 * and a client more than 4 MB behind is closed.
 */
import { type ClientTransport, type Incoming, MAX_LINE_BYTES } from "./transport.ts";

/** The subprotocol Parley speaks (text frames). */
export const IRC_SUBPROTOCOL = "text.ircv3.net";
const MAX_BUFFERED = 4 * 1024 * 1024;
/** Frames received and not yet read, before the socket is closed for flooding. */
const MAX_WAITING = 1000;

export class WebSocketTransport implements ClientTransport {
  #socket: WebSocket;
  #waiting: Incoming[] = [];
  #wake?: () => void;
  #ended = false;

  constructor(socket: WebSocket, readonly address: string) {
    this.#socket = socket;
    socket.onmessage = (ev) => {
      if (typeof ev.data !== "string") return this.close(); // binary frames: not this subprotocol
      if (this.#waiting.length >= MAX_WAITING) return this.close();
      const text = ev.data.replace(/\r?\n$/, "");
      const tooLong = text.length > MAX_LINE_BYTES ||
        new TextEncoder().encode(text).length > MAX_LINE_BYTES;
      this.#waiting.push(tooLong ? { tooLong: true } : { line: text });
      this.#wake?.();
    };
    socket.onclose = () => {
      this.#ended = true;
      this.#wake?.();
    };
    socket.onerror = () => socket.onclose?.(new CloseEvent("close"));
  }

  async *lines(): AsyncIterable<Incoming> {
    while (true) {
      const next = this.#waiting.shift();
      if (next) {
        // A frame holding several lines (some clients join them) is read line by line.
        if ("line" in next && next.line.includes("\n")) {
          for (const l of next.line.split(/\r?\n/)) if (l) yield { line: l };
        } else yield next;
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
    if (
      this.#socket.readyState === WebSocket.OPEN || this.#socket.readyState === WebSocket.CONNECTING
    ) {
      this.#socket.close(1000);
    }
    this.#ended = true;
    this.#wake?.();
  }
}
