/** Time helpers. Parley keeps times as integer microseconds since the Unix epoch. */

/** The current time in microseconds, in whole milliseconds (what stored times keep). */
export function nowMicros(): number {
  // The wall clock as it is now. `performance.timeOrigin + performance.now()` is the clock at start
  // plus a monotonic count: it never sees the clock set after start (a board without a real-time
  // clock boots with a wrong date that NTP sets later) and falls behind by every suspend.
  return Date.now() * 1000;
}
