/**
 * Chat lines Parley reads and will never store (an ignored person's, or a new conversation's past
 * the connection's limit), told to whoever waits for their stored copy: the bouncer relay holds the
 * lines after a chat line back until that line is stored, and must not wait for one that never will.
 */
import type { ChatType } from "../../store/message_types.ts";
import type { IrcConnection } from "../engine/connection.ts";

/** A chat line not stored: its conversation's name as IRC spells it, sender, kind and text. */
export interface UnstoredLine {
  name: string;
  from: string;
  type: ChatType;
  text: string;
  /** Dropped on purpose (ignored): no one is shown it. */
  ignored: boolean;
}

export type UnstoredTap = (conn: IrcConnection, line: UnstoredLine) => void;

const taps = new Set<UnstoredTap>();

/** Adds a tap; returns the function that removes it. */
export function tapUnstored(tap: UnstoredTap): () => void {
  taps.add(tap);
  return () => void taps.delete(tap);
}

/** Tells every tap of a line that will not be stored. */
export function unstored(conn: IrcConnection, line: UnstoredLine): void {
  for (const tap of taps) {
    try {
      tap(conn, line);
    } catch {
      // A tap's failure must not stop the connection's handling.
    }
  }
}
