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

/** Formats microseconds as RFC 3339 with `Z` and six fraction digits. */
export function formatMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  const iso = new Date(ms).toISOString(); // 2026-11-22T10:00:00.123Z
  const micros = String(us - ms * 1000).padStart(3, "0");
  return `${iso.slice(0, 23)}${micros}Z`;
}
