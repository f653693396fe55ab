/** The address classifier behind embed: every form of a non-public address is recognised. */
import { assertEquals } from "../../support/assert.ts";
import {
  classifyAddress,
  isLocalName,
  isPublicAddress,
  parseIPv4,
  parseIPv6,
} from "../../../embed/address.ts";

Deno.test("embed address: IPv4 in every inet_aton form", () => {
  for (
    const form of ["127.0.0.1", "2130706433", "0177.0.0.1", "0x7f.0.0.1", "0x7f000001", "127.1"]
  ) {
    assertEquals(parseIPv4(form), 0x7f000001, form);
    assertEquals(classifyAddress(form), "loopback", form);
  }
  assertEquals(parseIPv4("017700000001"), 0x7f000001);
  assertEquals(parseIPv4("256.0.0.1"), undefined);
  assertEquals(parseIPv4("1.2.3.4.5"), undefined);
  assertEquals(parseIPv4("1.2.3.256"), undefined);
  assertEquals(parseIPv4("08.1.1.1"), undefined);
  assertEquals(parseIPv4("example.com"), undefined);
});

Deno.test("embed address: IPv4 ranges", () => {
  const cases: [string, string][] = [
    ["0.0.0.0", "unspecified"],
    ["0", "unspecified"],
    ["10.1.2.3", "private"],
    ["10.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["169.254.169.254", "link-local"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "reserved"],
    ["192.0.2.1", "reserved"],
    ["198.18.0.1", "reserved"],
    ["8.8.8.8", "public"],
    ["172.32.0.1", "public"],
    ["100.63.255.255", "public"],
    ["93.184.216.34", "public"],
  ];
  for (const [ip, cls] of cases) assertEquals(classifyAddress(ip), cls, ip);
});

Deno.test("embed address: IPv6, mapped and embedding forms", () => {
  const cases: [string, string][] = [
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["[::ffff:7f00:1]", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "link-local"],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::7f00:1", "loopback"],
    ["64:ff9b::808:808", "public"],
    ["2002:7f00:1::1", "private"],
    ["2001::1", "reserved"],
    ["2001:db8::1", "reserved"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["fec0::1", "private"],
    ["ff02::1", "multicast"],
    ["100::1", "reserved"],
    ["::ffff:8.8.8.8", "public"],
    ["2606:4700:4700::1111", "public"],
    ["2a00:1450:4001:80b::200e", "public"],
  ];
  for (const [ip, cls] of cases) assertEquals(classifyAddress(ip), cls, ip);
  assertEquals(parseIPv6("1:2:3:4:5:6:7:8:9"), undefined);
  assertEquals(parseIPv6("1::2::3"), undefined);
  assertEquals(parseIPv6("::ffff:1.2.3"), undefined);
  assertEquals(classifyAddress("not an address"), "invalid");
  assertEquals(isPublicAddress("not an address"), false);
});

Deno.test("embed address: tricky spellings are never public", () => {
  const loopback = [
    "0X7F.1",
    "0x7F.0.0.0x1",
    "0x00007f.1",
    "0000177.0.0.1",
    "0177.1",
    "127.0.1",
    "127.000.000.001",
    "0x7f.0.1",
    "::FFFF:127.0.0.1",
    "::ffff:7F00:0001",
    "0:0:0:0:0:ffff:7f00:0001",
    "0000:0000:0000:0000:0000:0000:0000:0001",
    "::0:1",
    "[::ffff:127.0.0.1]",
    "::ffff:127.0.0.1%eth0",
    "64:ff9b::127.0.0.1",
  ];
  for (const ip of loopback) assertEquals(classifyAddress(ip), "loopback", ip);
  const notPublic: [string, string][] = [
    ["4294967295", "reserved"],
    ["0xffffffff", "reserved"],
    ["3232235777", "private"], // 192.168.1.1
    ["0xa9.0xfe.0xa9.0xfe", "link-local"], // 169.254.169.254
    ["[fe80::1%25eth0]", "link-local"],
    ["2002:a00:1::", "private"], // 6to4 of 10.0.0.1
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved"], // Teredo
    ["64:ff9b:1::1", "private"],
    // A dotted tail with leading zeros is read differently by different parsers: refused.
    ["::ffff:0177.0.0.1", "invalid"],
    ["::ffff:127.1", "invalid"],
    ["::ffff:0x7f.1", "invalid"],
    ["4294967296", "invalid"],
    ["127.0.0.1.", "invalid"],
    [" 127.0.0.1", "invalid"],
    ["127.0.0.1 ", "invalid"],
    ["+127.0.0.1", "invalid"],
    ["[::1", "invalid"],
    [":::1", "invalid"],
    ["1.2.3.4.5", "invalid"],
  ];
  for (const [ip, cls] of notPublic) {
    assertEquals(classifyAddress(ip), cls, ip);
    assertEquals(isPublicAddress(ip), false, ip);
  }
  assertEquals(parseIPv4("0xffffffff"), 0xffffffff);
  assertEquals(parseIPv6("[::ffff:8.8.8.8]"), [0, 0, 0, 0, 0, 0xffff, 0x808, 0x808]);
  assertEquals(classifyAddress("134744072"), "public"); // 8.8.8.8
});

Deno.test("embed address: names that always mean this machine", () => {
  for (const name of ["localhost", "LOCALHOST.", "a.b.localhost"]) {
    assertEquals(isLocalName(name), true);
  }
  assertEquals(isLocalName("localhost.example.com"), false);
});
