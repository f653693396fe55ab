/**
 * When to believe a server's IRCv3 `@time` tag. Any line may carry the tag, so Parley takes it only
 * when the `server-time` capability was negotiated, and never later than the line's arrival;
 * otherwise the message gets its arrival time. A hostile time (year 3100, year 1000)
 * must never reach the store: it breaks ordering and, past 2^53 microseconds, integer arithmetic.
 */
import { nowMicros } from "../../lib/time.ts";
import type { UpstreamState } from "../upstream_state.ts";

/** The capabilities that carry server times (engine/registration.ts asks for each). */
const CAPS = ["server-time", "znc.in/server-time-iso", "znc.in/server-time"];
/** Earliest server time accepted (ms): nothing on IRC that Parley replays is older. */
const EARLIEST_SERVER_TIME = Date.UTC(1990, 0, 1);

/** True when the connection negotiated a capability that makes `@time` tags meaningful. */
export function serverTimeEnabled(upstream: Pick<UpstreamState, "capEnabled">): boolean {
  return CAPS.some((cap) => upstream.capEnabled(cap));
}

/**
 * The time (microseconds) to store for a line: the server's time `ms` when it was negotiated and
 * is sane, never later than `now` (the arrival time), else `now`.
 */
export function lineTime(ms: unknown, negotiated: boolean, now = nowMicros()): number {
  if (!negotiated || typeof ms !== "number" || !Number.isFinite(ms)) return now;
  if (ms < EARLIEST_SERVER_TIME) return now;
  // A line is said before it reaches us: a time ahead of our clock is the server's clock running
  // fast. Taken as it is, the line would sort after what the user says in reply, and its mention
  // would count as unread after the user read the conversation (read up to our clock's now).
  return Math.min(Math.floor(ms * 1000), now);
}
