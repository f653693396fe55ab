/**
 * One way to write an IP address for comparing it: without the brackets of a URL's host or a
 * zone, lower case, and an IPv4 address as itself when a dual-stack socket shows it mapped into
 * IPv6 (`::ffff:127.0.0.1`).
 */
export function plainAddress(address: string): string {
  const a = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "").toLowerCase();
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/.test(a) ? a.slice(7) : a;
}
