import { assertEquals } from "../support/assert.ts";
import { formatMicros, parseMicros } from "../../lib/time.ts";
import { hostId, hostShortName } from "../../irc/host_id.ts";
import { hmac, safeEqual } from "../../lib/crypto.ts";

Deno.test("time: RFC 3339 with microseconds round-trips", () => {
  const us = Date.UTC(2026, 10, 22, 10, 0, 0, 123) * 1000 + 456;
  assertEquals(formatMicros(us), "2026-11-22T10:00:00.123456Z");
  assertEquals(parseMicros("2026-11-22T10:00:00.123456Z"), us);
  assertEquals(parseMicros("2026-11-22T11:00:00.123456+01:00"), us);
  assertEquals(parseMicros("2026-11-22T10:00:00Z"), Date.UTC(2026, 10, 22, 10) * 1000);
  assertEquals(parseMicros("2026-11-22T10:00:00"), Date.UTC(2026, 10, 22, 10) * 1000);
  for (
    const bad of [
      "",
      "yesterday",
      "2026-13-01T00:00:00Z",
      "2026-02-30T00:00:00Z",
      "2026-11-22T25:00:00Z",
    ]
  ) {
    assertEquals(parseMicros(bad), null, bad);
  }
});

Deno.test("host ids: short names of IRC hosts", () => {
  assertEquals(hostShortName("irc.libera.chat"), "libera");
  assertEquals(hostShortName("irc.eu.libera.chat"), "libera");
  assertEquals(hostShortName("127.0.0.1"), "localhost");
  assertEquals(hostShortName("localhost"), "localhost");
  assertEquals(hostShortName("chat.freenode.net"), "freenode");
  assertEquals(hostShortName("10.1.2.3"), "10-1-2-3");
  assertEquals(hostId("irc.example.org"), "irc-example");
});

Deno.test("crypto: hmac is stable and compares safely", async () => {
  const a = await hmac("secret-one", "message");
  assertEquals(a, await hmac("secret-one", "message"));
  assertEquals(safeEqual(a, await hmac("secret-two", "message")), false);
  assertEquals(safeEqual("abc", "abc"), true);
  assertEquals(safeEqual("abc", "abcd"), false);
});
