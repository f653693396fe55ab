/**
 * Which addresses embed may connect to. Host names are parsed the way resolvers and browsers do
 * (`2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`, `[::ffff:127.0.0.1]`), so no spelling of a
 * private address slips through as a "name".
 */

/** Parses an IPv4 address in any inet_aton form (1 to 4 parts; decimal, octal or hex); null if not. */
export function parseIPv4(text: string): number[] | null {
  const parts = text.replace(/\.$/, "").split(".");
  if (parts.length < 1 || parts.length > 4) return null;
  const nums: number[] = [];
  for (const p of parts) {
    let n: number;
    if (/^0x[0-9a-f]*$/i.test(p)) n = p.length === 2 ? 0 : parseInt(p.slice(2), 16);
    else if (/^0[0-7]+$/.test(p)) n = parseInt(p, 8);
    else if (/^(0|[1-9]\d*)$/.test(p)) n = Number(p);
    else return null;
    if (!Number.isSafeInteger(n)) return null;
    nums.push(n);
  }
  // The last part fills the remaining bytes: 127.1 is 127.0.0.1, 2130706433 is 127.0.0.1.
  const last = nums.pop()!;
  if (nums.some((n) => n > 255) || last >= 256 ** (4 - nums.length)) return null;
  const bytes = [...nums];
  const rest = 4 - nums.length;
  for (let i = rest - 1; i >= 0; i--) bytes.push(Math.floor(last / 256 ** i) % 256);
  return bytes;
}

/** Parses an IPv6 address (brackets and an embedded IPv4 tail allowed) into 8 groups; null if not. */
export function parseIPv6(text: string): number[] | null {
  let s = text.replace(/^\[|\]$/g, "").toLowerCase();
  if (s.includes("%")) s = s.slice(0, s.indexOf("%")); // a zone id says nothing about the address
  if (!/^[0-9a-f:.]+$/.test(s) || !s.includes(":")) return null;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (v4) {
    // An IPv4 tail (::ffff:127.0.0.1) is two groups written in dotted form.
    const b = v4.slice(1).map(Number);
    if (b.some((n) => n > 255) || !/(^|:)$/.test(s.slice(0, v4.index))) return null;
    const hex = (x: number, y: number) => (x * 256 + y).toString(16);
    s = s.slice(0, v4.index) + hex(b[0], b[1]) + ":" + hex(b[2], b[3]);
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const group = (h: string) => (h === "" ? [] : h.split(":"));
  const head = group(halves[0]);
  const back = halves.length === 2 ? group(halves[1]) : [];
  if ([...head, ...back].some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  const given = head.length + back.length;
  if (halves.length === 1 && given !== 8) return null;
  if (halves.length === 2 && given > 7) return null;
  const zeros = new Array(8 - given).fill(0);
  return [
    ...head.map((g) => parseInt(g, 16)),
    ...zeros,
    ...back.map((g) => parseInt(g, 16)),
  ];
}

function inV4(b: number[], net: [number, number, number, number], bits: number): boolean {
  const a = ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0;
  const n = ((net[0] << 24) | (net[1] << 16) | (net[2] << 8) | net[3]) >>> 0;
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return (a & mask) === (n & mask);
}

// Loopback, private, shared (CGNAT), link-local, documentation, benchmarking, multicast, reserved.
const V4_BLOCKED: [[number, number, number, number], number][] = [
  [[0, 0, 0, 0], 8],
  [[10, 0, 0, 0], 8],
  [[100, 64, 0, 0], 10],
  [[127, 0, 0, 0], 8],
  [[169, 254, 0, 0], 16],
  [[172, 16, 0, 0], 12],
  [[192, 0, 0, 0], 24],
  [[192, 0, 2, 0], 24],
  [[192, 88, 99, 0], 24],
  [[192, 168, 0, 0], 16],
  [[198, 18, 0, 0], 15],
  [[198, 51, 100, 0], 24],
  [[203, 0, 113, 0], 24],
  [[224, 0, 0, 0], 4],
  [[240, 0, 0, 0], 4],
];

/** Whether an IPv4 address (4 bytes) is public, routable unicast. */
export function isPublicIPv4(b: number[]): boolean {
  return !V4_BLOCKED.some(([net, bits]) => inV4(b, net, bits));
}

/** Whether an IPv6 address (8 groups) is public: global unicast, and any embedded IPv4 public. */
export function isPublicIPv6(g: number[]): boolean {
  const v4 = (i: number) => [g[i] >> 8, g[i] & 255, g[i + 1] >> 8, g[i + 1] & 255];
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible, and :: and ::1 with it): judge the IPv4.
  if (zeroTo(5) && g[5] === 0xffff) return isPublicIPv4(v4(6));
  if (zeroTo(6)) return false;
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0) {
    return isPublicIPv4(v4(6)); // NAT64
  }
  if (g[0] === 0x2002) return isPublicIPv4(v4(1)); // 6to4
  if ((g[0] & 0xe000) !== 0x2000) return false; // only 2000::/3 is global unicast
  if (g[0] === 0x2001 && g[1] === 0x0db8) return false; // documentation
  if (g[0] === 0x2001 && g[1] < 0x200) return false; // Teredo, benchmarking, ORCHID: tunnels
  return true;
}

/** Parses an IP literal in any form; null for a name. */
export function parseIp(host: string): { v4: number[] } | { v6: number[] } | null {
  const v6 = parseIPv6(host);
  if (v6) return { v6 };
  const v4 = parseIPv4(host);
  return v4 ? { v4 } : null;
}

/** Whether an IP literal (any spelling) is a public address; false for anything that is not an IP. */
export function isPublicAddress(ip: string): boolean {
  const parsed = parseIp(ip);
  if (!parsed) return false;
  return "v4" in parsed ? isPublicIPv4(parsed.v4) : isPublicIPv6(parsed.v6);
}

/** The canonical text of an IP literal (for connecting), or null for a name. */
export function canonicalIp(host: string): string | null {
  const parsed = parseIp(host);
  if (!parsed) return null;
  if ("v4" in parsed) return parsed.v4.join(".");
  return parsed.v6.map((x) => x.toString(16)).join(":");
}
