/**
 * The one place where something outside irc/ sees the raw lines a server sends: each line of
 * each connection, before it is parsed or stored. The bouncer listener relays them to the IRC
 * clients attached to that connection; a tap must be quick and must not throw.
 */
import type { IrcConnection } from "./connection.ts";

/** Sees one raw line (without CR LF) of one connection. */
export type UpstreamTap = (conn: IrcConnection, line: string) => void;

const taps = new Set<UpstreamTap>();

/** Adds a tap; returns the function that removes it. */
export function tapUpstream(tap: UpstreamTap): () => void {
  taps.add(tap);
  return () => void taps.delete(tap);
}

/** Hands a line to every tap (called by IrcConnection for every line it reads). */
export function upstreamLine(conn: IrcConnection, line: string): void {
  for (const tap of taps) {
    try {
      tap(conn, line);
    } catch {
      // A tap's failure must not stop the line from being handled.
    }
  }
}

/** Told once a connection is stopped for good (removed, its user deleted, or moved away). */
export type GoneTap = (conn: IrcConnection) => void;

const goneTaps = new Set<GoneTap>();

/** Adds a tap of connections gone; returns the function that removes it. */
export function tapGone(tap: GoneTap): () => void {
  goneTaps.add(tap);
  return () => void goneTaps.delete(tap);
}

/** Tells every tap that a connection is gone (called by IrcConnection.dispose). */
export function connectionGone(conn: IrcConnection): void {
  for (const tap of goneTaps) {
    try {
      tap(conn);
    } catch {
      // As for lines: a tap's failure changes nothing for the connection.
    }
  }
}
