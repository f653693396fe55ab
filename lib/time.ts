/** Time helpers. Parley keeps times as integer microseconds since the Unix epoch. */

/** The current time in microseconds. */
export function nowMicros(): number {
  // performance.timeOrigin + now() gives sub-millisecond resolution where available.
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}
