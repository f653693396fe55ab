/** Time helpers. Parley keeps times as integer microseconds since the Unix epoch. */

/** The current time in microseconds. */
export function nowMicros(): number {
  // performance.timeOrigin + now() gives sub-millisecond resolution where available.
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

/** Formats microseconds as RFC 3339 with `Z` and six fraction digits. */
export function formatMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  const iso = new Date(ms).toISOString(); // 2026-11-22T10:00:00.123Z
  const micros = String(us - ms * 1000).padStart(3, "0");
  return `${iso.slice(0, 23)}${micros}Z`;
}
