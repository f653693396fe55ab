/** HMAC, constant-time comparison, base64url and hex (lib/crypto.ts). */
import { assertEquals } from "../../support/assert.ts";
import { base64url, hex, hmac, safeEqual } from "../../../lib/crypto.ts";

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
