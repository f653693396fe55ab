import { assertEquals } from "../support/assert.ts";
import { formatMicros } from "../../lib/time.ts";
import { parseMicros } from "../../protocol/time.ts";
import { hostId, hostShortName } from "../../irc/host_id.ts";
import { base64url, hex, hmac, safeEqual } from "../../lib/crypto.ts";

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
  assertEquals(safeEqual("", ""), true);
  assertEquals(safeEqual("é", "e"), false);
});

Deno.test("crypto: base64url and hex of whole arrays and of views into them", () => {
  const bytes = new Uint8Array([0xfb, 0xff, 0xbf, 0x00, 0x01, 0x3e, 0x3f]);
  assertEquals(base64url(bytes), "-_-_AAE-Pw");
  assertEquals(hex(bytes), "fbffbf00013e3f");
  // A view reads only its own bytes, not the whole buffer behind it.
  assertEquals(base64url(bytes.subarray(3, 5)), "AAE");
  assertEquals(hex(bytes.subarray(3, 5)), "0001");
  assertEquals(base64url(new Uint8Array(0)), "");
});
