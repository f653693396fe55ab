/**
 * Joins a socket's reads into fewer, larger messages while data pours in. During a burst the
 * socket thread reads a few KB at a time (as fast as the server writes), and each message to the
 * main thread has a fixed cost there (receive, decode, split) whatever its size, so fewer, larger
 * messages leave the main thread more of its time (docs/performance.md, "IRC bursts"). Reads go at
 * once while a window has carried little (live traffic, even a thousand lines a second, waits for
 * nothing); past that, the window's rest goes as one message at its end.
 */

/** The window over which the bytes sent at once are counted. */
const BATCH_WINDOW_MS = 2;
/** Bytes a window sends at once, read by read; more waits for the window's end. */
const BATCH_LIVE_BYTES = 4 * 1024;
/** A batch this large goes at once. */
const BATCH_MAX_BYTES = 256 * 1024;

import { type Clock, realClock } from "../../lib/clock.ts";

export class ReadBatcher {
  #parts: Uint8Array[] = [];
  #bytes = 0;
  #timer: unknown;
  #windowStart = -Infinity;
  #windowBytes = 0;
  #send: (chunk: Uint8Array) => void;
  #windowMs: number;
  #liveBytes: number;
  #maxBytes: number;
  #clock: Clock;

  constructor(
    send: (chunk: Uint8Array) => void,
    {
      windowMs = BATCH_WINDOW_MS,
      liveBytes = BATCH_LIVE_BYTES,
      maxBytes = BATCH_MAX_BYTES,
      clock = realClock,
    }: { windowMs?: number; liveBytes?: number; maxBytes?: number; clock?: Clock } = {},
  ) {
    this.#send = send;
    this.#clock = clock;
    this.#windowMs = windowMs;
    this.#liveBytes = liveBytes;
    this.#maxBytes = maxBytes;
  }

  /** A read's bytes (owned from now on: they may be sent as they are). */
  push(chunk: Uint8Array): void {
    const now = this.#clock.now();
    if (now - this.#windowStart >= this.#windowMs) {
      this.#windowStart = now;
      this.#windowBytes = 0;
    }
    if (this.#bytes === 0 && this.#windowBytes + chunk.length <= this.#liveBytes) {
      this.#windowBytes += chunk.length;
      this.#send(chunk);
      return;
    }
    this.#parts.push(chunk);
    this.#bytes += chunk.length;
    if (this.#bytes >= this.#maxBytes) return this.flush();
    this.#timer ??= this.#clock.after(() => this.flush(), this.#windowStart + this.#windowMs - now);
  }

  /** Sends what waits now (before the socket's error or close is told, and on a timer). */
  flush(): void {
    this.#clock.cancel(this.#timer);
    this.#timer = undefined;
    if (this.#bytes === 0) return;
    let chunk = this.#parts[0];
    if (this.#parts.length > 1) {
      chunk = new Uint8Array(this.#bytes);
      let at = 0;
      for (const part of this.#parts) {
        chunk.set(part, at);
        at += part.length;
      }
    }
    this.#parts = [];
    this.#bytes = 0;
    // A new window that has already carried its share: reads that follow at once join the next
    // batch rather than each going alone.
    this.#windowStart = this.#clock.now();
    this.#windowBytes = chunk.length;
    this.#send(chunk);
  }
}
