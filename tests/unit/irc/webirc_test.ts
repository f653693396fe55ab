import { assertEquals } from "../../support/assert.ts";
import { hostnameOf, resolvesTo, webircFor, webircWord } from "../../../irc/webirc.ts";

/** A user's sessions as the store lists them, most recently used first. */
const sessions = (...addresses: string[]) => ({
  listForUser: () =>
    Promise.resolve(addresses.map((address, i) => ({
      publicId: `p${i}`,
      idHash: `h${i}`,
      created: 0,
      lastUsed: 0,
      expires: 0,
      userAgent: "",
      address,
    }))),
});

Deno.test("WEBIRC: the user's last address, its name when one resolves back", async () => {
  assertEquals(await webircFor(sessions("127.0.0.1"), 1, ""), undefined, "no password, none");
  assertEquals(await webircFor(sessions("127.0.0.1"), 1, "two words"), undefined);
  assertEquals(await webircFor(sessions("127.0.0.1", "192.0.2.1"), 1, "pw"), {
    password: "pw",
    hostname: "localhost",
    address: "127.0.0.1",
  });
  // Never used the web client (or an address that is none): Convos's default.
  for (const none of [sessions(), sessions(""), sessions("not an address")]) {
    assertEquals((await webircFor(none, 1, "pw"))?.address, "127.0.0.1");
  }
  assertEquals(await hostnameOf("192.0.2.1"), "192.0.2.1", "no name: the address stands");
});

Deno.test("WEBIRC: an IPv6 address that starts with a colon is written with a 0 first", () => {
  assertEquals(webircWord("::1"), "0::1");
  assertEquals(webircWord("2001:db8::1"), "2001:db8::1");
  assertEquals(webircWord("host.example"), "host.example");
});

Deno.test("WEBIRC: a reverse name stands only when it resolves forward to the address", async () => {
  assertEquals(await resolvesTo("localhost", "127.0.0.1", 2000), true);
  assertEquals(await resolvesTo("localhost", "::ffff:127.0.0.1", 2000), true, "one address");
  // Whoever answers for 192.0.2.1's reverse zone could name it "localhost": not taken.
  assertEquals(await resolvesTo("localhost", "192.0.2.1", 2000), false);
  assertEquals(await resolvesTo("no-such-name.invalid", "127.0.0.1", 2000), false);
});
