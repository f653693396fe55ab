import { assert, assertEquals } from "../support/assert.ts";
import { canonicalIp, isPublicAddress, parseIPv4, parseIPv6 } from "../../embed/address.ts";

Deno.test("embed address: IPv4 in every spelling", () => {
  assertEquals(parseIPv4("127.0.0.1"), [127, 0, 0, 1]);
  assertEquals(parseIPv4("2130706433"), [127, 0, 0, 1]);
  assertEquals(parseIPv4("0177.0.0.1"), [127, 0, 0, 1]);
  assertEquals(parseIPv4("0x7f.0.0.1"), [127, 0, 0, 1]);
  assertEquals(parseIPv4("0x7f000001"), [127, 0, 0, 1]);
  assertEquals(parseIPv4("127.1"), [127, 0, 0, 1]);
  assertEquals(parseIPv4("10.1.65535"), [10, 1, 255, 255]);
  assertEquals(parseIPv4("017700000001"), [127, 0, 0, 1]);
  assertEquals(parseIPv4("256.0.0.1"), null);
  assertEquals(parseIPv4("example.com"), null);
  assertEquals(parseIPv4("1.2.3.4.5"), null);
});

Deno.test("embed address: IPv6 forms", () => {
  assertEquals(parseIPv6("::1"), [0, 0, 0, 0, 0, 0, 0, 1]);
  assertEquals(parseIPv6("[::ffff:127.0.0.1]"), [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
  assertEquals(parseIPv6("::ffff:7f00:1"), [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
  assertEquals(parseIPv6("2001:db8::1"), [0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]);
  assertEquals(parseIPv6("fe80::1%eth0"), [0xfe80, 0, 0, 0, 0, 0, 0, 1]);
  assertEquals(parseIPv6("1::2::3"), null);
  assertEquals(parseIPv6("127.0.0.1"), null);
  assertEquals(canonicalIp("[::FFFF:127.0.0.1]"), "0:0:0:0:0:ffff:7f00:1");
  assertEquals(canonicalIp("127.1"), "127.0.0.1");
  assertEquals(canonicalIp("example.com"), null);
});

Deno.test("embed address: refused and allowed addresses", () => {
  const refused = [
    "127.0.0.1",
    "2130706433",
    "0177.0.0.1",
    "0x7f.0.0.1",
    "127.1",
    "0.0.0.0",
    "0",
    "10.0.0.1",
    "172.16.5.4",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
    "192.0.2.1",
    "198.18.0.1",
    "::",
    "::1",
    "[::1]",
    "[::ffff:127.0.0.1]",
    "::ffff:10.0.0.1",
    "::ffff:7f00:1",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "2001:db8::1",
    "64:ff9b::7f00:1",
    "2002:7f00:1::",
    "::127.0.0.1",
    "fec0::1",
    "2001::1",
    "example.com",
    "",
  ];
  for (const a of refused) assert(!isPublicAddress(a), `${a} must be refused`);
  const allowed = [
    "93.184.216.34",
    "8.8.8.8",
    "172.32.0.1",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "2002:808:808::",
  ];
  for (const a of allowed) assert(isPublicAddress(a), `${a} must be allowed`);
});

Deno.test("embed address: IPv4-compatible tails parse", () => {
  assertEquals(parseIPv6("::127.0.0.1"), [0, 0, 0, 0, 0, 0, 0x7f00, 1]);
  assertEquals(parseIPv6("64:ff9b::8.8.8.8"), [0x64, 0xff9b, 0, 0, 0, 0, 0x808, 0x808]);
  assertEquals(parseIPv6("::1.2.3.256"), null);
});
