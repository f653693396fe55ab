/**
 * The API's times: RFC 3339 on the wire, kept as integer microseconds since the Unix epoch; written
 * and read here, for the server and the browser alike.
 */

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|z|[+-]\d{2}:?\d{2})?$/;

/** Parses an RFC 3339 / ISO 8601 date-time into microseconds, or returns null when invalid. */
export function parseMicros(text: string): number | null {
  const m = RFC3339.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac = "", zone = "Z"] = m;
  const base = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s);
  if (Number.isNaN(base)) return null;
  const check = new Date(base);
  if (
    check.getUTCDate() !== +d || check.getUTCMonth() !== +mo - 1 || +h > 23 || +mi > 59 || +s > 60
  ) return null;
  let offsetMin = 0;
  if (zone !== "Z" && zone !== "z") {
    const sign = zone[0] === "-" ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    offsetMin = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
  }
  const fracMicros = Number((frac + "000000").slice(0, 6));
  return (base - offsetMin * 60_000) * 1000 + fracMicros;
}

// The date and time up to the second of the last time formatted ("2026-11-22T10:00:00."): lines
// stored together share their second, and a Date's ISO string was most of the cost of each.
let lastSecond = NaN;
let lastPrefix = "";

/** Formats microseconds as RFC 3339 with `Z` and six fraction digits. */
export function formatMicros(us: number): string {
  const second = Math.floor(us / 1_000_000);
  if (second !== lastSecond) {
    lastPrefix = new Date(second * 1000).toISOString().slice(0, 20);
    lastSecond = second;
  }
  return `${lastPrefix}${String(us - second * 1_000_000).padStart(6, "0")}Z`;
}
