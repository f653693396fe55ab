/**
 * Channel events as history keeps them (joins, parts, kicks, topics, modes...), told to whoever
 * shows the same event live: the bouncer relay holds the server's JOIN (say) until it is kept, so
 * attached clients get it with the msgid of its stored row, the one CHATHISTORY gives it.
 */
import type { IrcConnection } from "../engine/connection.ts";

/** One kept event: where, what, who, and its stored msgid (none when it was not kept). */
export interface KeptEvent {
  /** Casefolded, as conversations are keyed. */
  conversationId: string;
  kind: string;
  from: string;
  msgid?: string;
}

export type KeptTap = (conn: IrcConnection, ev: KeptEvent) => void;

const taps = new Set<KeptTap>();

/** Adds a tap; returns the function that removes it. */
export function tapKept(tap: KeptTap): () => void {
  taps.add(tap);
  return () => void taps.delete(tap);
}

/** Tells every tap of an event kept (or, without msgid, not kept). */
export function kept(conn: IrcConnection, ev: KeptEvent): void {
  for (const tap of taps) {
    try {
      tap(conn, ev);
    } catch {
      // A tap's failure must not stop the connection's handling.
    }
  }
}
