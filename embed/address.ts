/**
 * Address classification for server-side fetches: which IP addresses a fetch started by a user may
 * reach. Only global unicast addresses are public; loopback, private, shared (CGNAT), link-local,
 * multicast, unspecified, documentation and reserved ranges are not, nor IPv6 forms that embed
 * such an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo). ipaddr.js parses the addresses;
 * which ranges count as public is Parley's own rule, in the tables below.
 */
import ipaddr from "ipaddr.js";

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

type V4 = ipaddr.IPv4;
type V6 = ipaddr.IPv6;

/** An IPv4 address in any form inet_aton takes (dotted, short, decimal, octal, hex), or undefined. */
function v4Of(text: string): V4 | undefined {
  // ipaddr.js takes inet_aton's forms; nothing else (no spaces, signs or empty parts).
  return ipaddr.IPv4.isValid(text) ? ipaddr.IPv4.parse(text) : undefined;
}

/**
 * An IPv6 address (brackets and a zone allowed), or undefined. A dotted tail must be plain decimal:
 * ipaddr.js reads `::ffff:0177.0.0.1` as 177.0.0.1 where inet_aton would read 127.0.0.1, so such a
 * spelling is refused rather than guessed.
 */
function v6Of(text: string): V6 | undefined {
  const s = text.replace(/^\[(.*)\]$/, "$1");
  if (!s.includes(":")) return undefined;
  const tail = s.replace(/%.*$/, "").split(":").at(-1)!;
  if (tail.includes(".") && !/^(0|[1-9]\d{0,2})(\.(0|[1-9]\d{0,2})){3}$/.test(tail)) {
    return undefined;
  }
  return ipaddr.IPv6.isValid(s) ? ipaddr.IPv6.parse(s) : undefined;
}

/**
 * Parses an IPv4 address in any form `inet_aton` accepts (and so browsers and URL parsers):
 * dotted (`127.0.0.1`), short (`127.1`), decimal (`2130706433`), octal (`0177.0.0.1`) and hex
 * (`0x7f.0.0.1`, `0x7f000001`). Returns the 32-bit value, or undefined when it is not one.
 */
export function parseIPv4(text: string): number | undefined {
  const ip = v4Of(text);
  return ip?.octets.reduce((n, o) => n * 256 + o, 0);
}

/**
 * Parses an IPv6 address (brackets and a zone allowed) into eight 16-bit words.
 *
 * @internal test seam
 */
export function parseIPv6(text: string): number[] | undefined {
  return v6Of(text)?.parts.slice();
}

const cidr = (text: string) => ipaddr.parseCIDR(text);

const V4_RANGES: [ReturnType<typeof cidr>, AddressClass][] = ([
  ["0.0.0.0/8", "unspecified"],
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "private"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link-local"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "reserved"],
  ["192.0.2.0/24", "reserved"],
  ["192.88.99.0/24", "reserved"],
  ["192.168.0.0/16", "private"],
  ["198.18.0.0/15", "reserved"],
  ["198.51.100.0/24", "reserved"],
  ["203.0.113.0/24", "reserved"],
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved"],
] as [string, AddressClass][]).map(([range, cls]) => [cidr(range), cls]);

/** The class of an IPv4 address. */
function classifyV4(ip: V4): AddressClass {
  for (const [range, cls] of V4_RANGES) if (ip.match(range)) return cls;
  return "public";
}

/** The IPv4 address in two 16-bit words. */
const v4From = (hi: number, lo: number): V4 =>
  new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);

const V6_RANGES: [ReturnType<typeof cidr>, AddressClass][] = ([
  ["ff00::/8", "multicast"],
  ["fe80::/10", "link-local"],
  ["fec0::/10", "private"],
  ["fc00::/7", "private"],
  // 2001::/23 holds Teredo and other protocol assignments; 2001:db8::/32 is documentation.
  ["2001::/23", "reserved"],
  ["2001:db8::/32", "reserved"],
] as [string, AddressClass][]).map(([range, cls]) => [cidr(range), cls]);

const GLOBAL_UNICAST = cidr("2000::/3");

/** The class of an IPv6 address. */
function classifyV6(ip: V6): AddressClass {
  const w = ip.parts;
  const zeros = (n: number) => w.slice(0, n).every((x) => x === 0);
  const v4 = () => classifyV4(v4From(w[6], w[7]));
  if (zeros(8)) return "unspecified";
  if (zeros(7) && w[7] === 1) return "loopback";
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible) reach the IPv4 address.
  if (ip.isIPv4MappedAddress()) return v4();
  if (zeros(6)) return v4() === "public" ? "reserved" : v4();
  // 64:ff9b::/96 NAT64 reaches the embedded IPv4 address; 64:ff9b:1::/48 is for local use.
  if (w[0] === 0x64 && w[1] === 0xff9b) {
    return w.slice(2, 6).every((x) => x === 0) ? v4() : "private";
  }
  // 2002::/16 (6to4) embeds an IPv4 address in bits 16..47.
  if (w[0] === 0x2002) return classifyV4(v4From(w[1], w[2])) === "public" ? "public" : "private";
  for (const [range, cls] of V6_RANGES) if (ip.match(range)) return cls;
  // Everything outside 2000::/3 (global unicast) is reserved or special.
  return ip.match(GLOBAL_UNICAST) ? "public" : "reserved";
}

/**
 * Classifies an IP address written in any of the forms above (IPv4 in inet_aton forms, IPv6 with
 * or without brackets); `invalid` when it is neither.
 */
export function classifyAddress(text: string): AddressClass {
  const v4 = v4Of(text);
  if (v4) return classifyV4(v4);
  const v6 = v6Of(text);
  if (v6) return classifyV6(v6);
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
