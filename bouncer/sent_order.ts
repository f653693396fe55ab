/**
 * The order in which PRIVMSG and NOTICE lines were written to a server that echoes without
 * Parley's label: it echoes them in that order, so each echo is the first line in flight to its
 * target. Kept by a connection's hub, and by the relay for a connection without one (the web
 * client's and Parley's own lines), whose list the hub takes over when it is made.
 */
import { ircLower } from "../lib/casefold.ts";

/** Most lines in flight kept; past it the oldest goes (its echo is then told to everyone). */
const MAX_IN_FLIGHT = 256;

interface Sent<E> {
  /** Casefolded. */
  target: string;
  /** What the line's echo is to be told as (a client's line); none for everyone's. */
  echo?: E;
}

export class SentOrder<E> {
  #lines: Sent<E>[] = [];

  get size(): number {
    return this.#lines.length;
  }

  /** A line to `target` was written. */
  wrote(target: string, echo?: E): void {
    this.#lines.push({ target: ircLower(target), echo });
    if (this.#lines.length > MAX_IN_FLIGHT) this.#lines.shift();
  }

  /** The echo of (or the server's refusal of) the first line in flight to `target` came. */
  take(target: string): Sent<E> | undefined {
    const lower = ircLower(target);
    const at = this.#lines.findIndex((s) => s.target === lower);
    return at < 0 ? undefined : this.#lines.splice(at, 1)[0];
  }

  /** Registered again: the echoes of the lines written before will not come. */
  clear(): void {
    this.#lines = [];
  }

  /** Lines whose echo was to be told as `echo` are told to everyone instead. */
  forget(which: (echo: E) => boolean): void {
    for (const s of this.#lines) if (s.echo !== undefined && which(s.echo)) s.echo = undefined;
  }

  /** Puts `earlier`'s lines, written before these, in front of them. */
  takeOver(earlier: SentOrder<E>): void {
    this.#lines = [...earlier.#lines, ...this.#lines];
    earlier.clear();
  }
}
