/**
 * Address classification for server-side fetches: which IP addresses a fetch started by a user may
 * reach. Only global unicast addresses are public; loopback, private, shared (CGNAT), link-local,
 * multicast, unspecified, documentation and reserved ranges are not, nor IPv6 forms that embed
 * such an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo).
 */

/** Why an address is not public, or `public`. */
export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "multicast"
  | "unspecified"
  | "reserved"
  | "invalid";

/**
 * Parses an IPv4 address in any form `inet_aton` accepts (and so browsers and URL parsers):
 * dotted (`127.0.0.1`), short (`127.1`), decimal (`2130706433`), octal (`0177.0.0.1`) and hex
 * (`0x7f.0.0.1`, `0x7f000001`). Returns the 32-bit value, or undefined when it is not one.
 */
export function parseIPv4(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length > 4 || parts.some((p) => p === "")) return undefined;
  const nums: number[] = [];
  for (const p of parts) {
    let n: number;
    if (/^0x[0-9a-f]*$/i.test(p)) n = p.length === 2 ? 0 : parseInt(p.slice(2), 16);
    else if (/^0[0-7]*$/.test(p)) n = parseInt(p, 8);
    else if (/^[1-9][0-9]*$/.test(p)) n = parseInt(p, 10);
    else return undefined;
    nums.push(n);
  }
  const last = nums.pop()!;
  if (nums.some((n) => n > 255) || last >= 2 ** (8 * (4 - nums.length))) return undefined;
  let value = 0;
  for (const n of nums) value = value * 256 + n;
  return value * 2 ** (8 * (4 - nums.length)) + last;
}

/** Parses an IPv6 address (brackets and a zone allowed) into eight 16-bit words. */
export function parseIPv6(text: string): number[] | undefined {
  let s = text.replace(/^\[|\]$/g, "");
  const zone = s.indexOf("%");
  if (zone !== -1) s = s.slice(0, zone);
  if (!s.includes(":")) return undefined;
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(":");
  const maybeV4 = s.slice(lastColon + 1);
  if (maybeV4.includes(".")) {
    if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(maybeV4)) return undefined;
    const v4 = parseIPv4(maybeV4);
    if (v4 === undefined) return undefined;
    tail = [Math.floor(v4 / 65536), v4 % 65536];
    // Drop the dotted part: `::ffff:1.2.3.4` -> `::ffff`, `1::1.2.3.4` -> `1::`.
    s = s.slice(0, lastColon + 1);
    if (!s.endsWith("::")) s = s.slice(0, -1);
  }
  const halves = s.split("::");
  if (halves.length > 2) return undefined;
  const words = (h: string) => (h === "" ? [] : h.split(":"));
  const head = words(halves[0]);
  const rest = halves.length === 2 ? words(halves[1]) : [];
  const groups = [...head, ...rest];
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return undefined;
  const explicit = groups.length + tail.length;
  if (halves.length === 1 && explicit !== 8) return undefined;
  if (halves.length === 2 && explicit > 7) return undefined;
  const fill = new Array(8 - explicit).fill(0);
  const nums = (g: string[]) => g.map((x) => parseInt(x, 16));
  return halves.length === 2
    ? [...nums(head), ...fill, ...nums(rest), ...tail]
    : [...nums(head), ...tail];
}

function inV4(ip: number, base: string, bits: number): boolean {
  const b = parseIPv4(base)!;
  const size = 2 ** (32 - bits);
  return Math.floor(ip / size) === Math.floor(b / size);
}

const V4_RANGES: [string, number, AddressClass][] = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "private"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "reserved"],
  ["192.88.99.0", 24, "reserved"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "reserved"],
  ["198.51.100.0", 24, "reserved"],
  ["203.0.113.0", 24, "reserved"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];

/** The class of a 32-bit IPv4 address. */
export function classifyIPv4(ip: number): AddressClass {
  for (const [base, bits, cls] of V4_RANGES) if (inV4(ip, base, bits)) return cls;
  return "public";
}

/** The class of an IPv6 address given as eight words. */
export function classifyIPv6(w: number[]): AddressClass {
  const v4 = (hi: number, lo: number) => classifyIPv4(hi * 65536 + lo);
  const zeros = (n: number) => w.slice(0, n).every((x) => x === 0);
  if (zeros(8)) return "unspecified";
  if (zeros(7) && w[7] === 1) return "loopback";
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible) reach the IPv4 address.
  if (zeros(5) && w[5] === 0xffff) return v4(w[6], w[7]);
  if (zeros(6)) return v4(w[6], w[7]) === "public" ? "reserved" : v4(w[6], w[7]);
  // 64:ff9b::/96 NAT64 reaches the embedded IPv4 address; 64:ff9b:1::/48 is for local use.
  if (w[0] === 0x64 && w[1] === 0xff9b) {
    return w.slice(2, 6).every((x) => x === 0) ? v4(w[6], w[7]) : "private";
  }
  // 2002::/16 (6to4) embeds an IPv4 address in bits 16..47.
  if (w[0] === 0x2002) return v4(w[1], w[2]) === "public" ? "public" : "private";
  if ((w[0] & 0xff00) === 0xff00) return "multicast";
  if ((w[0] & 0xffc0) === 0xfe80) return "link-local";
  if ((w[0] & 0xffc0) === 0xfec0) return "private";
  if ((w[0] & 0xfe00) === 0xfc00) return "private";
  // 2001::/23 holds Teredo and other protocol assignments; 2001:db8::/32 is documentation.
  if (w[0] === 0x2001 && (w[1] < 0x200 || w[1] === 0xdb8)) return "reserved";
  // Everything outside 2000::/3 (global unicast) is reserved or special.
  if ((w[0] & 0xe000) !== 0x2000) return "reserved";
  return "public";
}

/**
 * Classifies an IP address written in any of the forms above (IPv4 in inet_aton forms, IPv6 with
 * or without brackets); `invalid` when it is neither.
 */
export function classifyAddress(text: string): AddressClass {
  const v4 = parseIPv4(text);
  if (v4 !== undefined) return classifyIPv4(v4);
  const v6 = parseIPv6(text);
  if (v6 !== undefined) return classifyIPv6(v6);
  return "invalid";
}

/** Whether a fetch started by a user may connect to this address. */
export function isPublicAddress(text: string): boolean {
  return classifyAddress(text) === "public";
}

/** Host names that mean this machine whatever DNS says (RFC 6761). */
export function isLocalName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return h === "localhost" || h.endsWith(".localhost") || h === "localhost.localdomain";
}
