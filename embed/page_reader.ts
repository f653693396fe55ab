/**
 * A page's bytes as they arrive, turned into text in the page's charset and handed to the head
 * reader, so parsing keeps pace with the socket and reading can stop once the head is over.
 */
import { charsetOfType, type HeadData, HeadReader } from "./html_head.ts";

/** Bytes looked at for a `<meta charset>` when the Content-Type names none. */
export const PRESCAN_BYTES = 2048;

/** A streaming decoder for a charset label, UTF-8 for labels the platform does not know. */
function decoderFor(charset: string | undefined): TextDecoder {
  try {
    return new TextDecoder(charset || "utf-8");
  } catch {
    return new TextDecoder();
  }
}

/** Reads one page; `write` its body pieces, then `end`. */
export class PageReader {
  readonly head = new HeadReader();
  #decoder: TextDecoder | undefined;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;

  /** `contentType` is the response's header; its charset, if any, wins over the page's. */
  constructor(contentType: string) {
    const charset = charsetOfType(contentType);
    if (charset) this.#decoder = decoderFor(charset);
  }

  /** Reads a piece of the body; true once nothing more is needed. */
  write(bytes: Uint8Array): boolean {
    if (this.#decoder) return this.head.write(this.#decoder.decode(bytes, { stream: true }));
    // The charset is not known yet: keep the start until a prescan can look for it.
    this.#pending.push(bytes.slice());
    this.#pendingBytes += bytes.length;
    return this.#pendingBytes >= PRESCAN_BYTES ? this.#prescan() : false;
  }

  /** The end of the body (or of what is read of it): what the head holds. */
  end(): HeadData {
    if (!this.#decoder) this.#prescan();
    this.head.write(this.#decoder!.decode());
    return this.head.end();
  }

  /** Finds the charset in the first bytes (read as Latin-1, ASCII being all a tag needs). */
  #prescan(): boolean {
    const start = new Uint8Array(this.#pendingBytes);
    let at = 0;
    for (const p of this.#pending) start.set(p, (at += p.length) - p.length);
    this.#pending = [];
    const probe = new HeadReader();
    probe.write(new TextDecoder("latin1").decode(start.subarray(0, PRESCAN_BYTES)));
    this.#decoder = decoderFor(probe.end().charset);
    return this.head.write(this.#decoder.decode(start, { stream: true }));
  }
}
