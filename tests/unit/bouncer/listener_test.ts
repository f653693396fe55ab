/** The group a client address counts in for the bound on clients registering at once. */
import { assertEquals } from "../../support/assert.ts";
import { addressGroup } from "../../../bouncer/listener.ts";

Deno.test("addressGroup: IPv4 alone, IPv6 by its /64, in every spelling", () => {
  assertEquals(addressGroup("203.0.113.7"), "203.0.113.7");
  assertEquals(addressGroup("::ffff:203.0.113.7"), "203.0.113.7");
  assertEquals(addressGroup("2001:db8:1:2::1"), "2001:db8:1:2::/64");
  assertEquals(addressGroup("2001:0db8:0001:0002:ffff:1:2:3"), "2001:db8:1:2::/64");
  assertEquals(addressGroup("[2001:DB8:1:2::9]"), "2001:db8:1:2::/64");
  assertEquals(addressGroup("2001:db8::1"), "2001:db8:0:0::/64");
  assertEquals(addressGroup("2001:db8:0:0:5::"), "2001:db8:0:0::/64");
  assertEquals(addressGroup("fe80::1%eth0"), "fe80:0:0:0::/64");
  assertEquals(addressGroup("::1"), "0:0:0:0::/64");
  assertEquals(addressGroup("unknown"), "unknown");
});
