/** App tokens (lib/app_token.ts): random, told apart from passwords, stored as their hash. */
import { assert, assertEquals } from "../../support/assert.ts";
import { appTokenHash, looksLikeAppToken, newAppToken } from "../../../lib/app_token.ts";
import { sha256Hex } from "../../../lib/crypto.ts";

Deno.test("app tokens: random, prefixed, and kept as the SHA-256 of the token", async () => {
  const a = await newAppToken();
  const b = await newAppToken();
  assert(a.token !== b.token);
  assert(a.token.startsWith("parley-"), a.token);
  assert(a.token.length >= "parley-".length + 24, a.token);
  assertEquals(a.hash, await sha256Hex(a.token));
  assertEquals(await appTokenHash(a.token), a.hash);
  assert(!a.hash.includes(a.token));
});

Deno.test("app tokens: what looks like one (then only its hash is looked up)", async () => {
  assertEquals(looksLikeAppToken((await newAppToken()).token), true);
  assertEquals(looksLikeAppToken("correct horse battery"), false);
  assertEquals(looksLikeAppToken("Parley-abc"), false, "the prefix is exact");
  assertEquals(looksLikeAppToken("parley-" + "x".repeat(92)), true);
  assertEquals(looksLikeAppToken("parley-" + "x".repeat(93)), false, "a long password is one");
});
