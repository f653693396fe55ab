/** The server secret's strength check (lib/secret_strength.ts): what is weak, what is not. */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { secretWeakness } from "../../../lib/secret_strength.ts";
import { randomId } from "../../../lib/crypto.ts";

/** What `openssl rand -base64 32` prints: 32 random bytes, base64. */
function opensslLike(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes));
}

Deno.test("secret strength: short, few characters or repetitive is weak", () => {
  assertStringIncludes(secretWeakness("correct-horse-16")!, "16 bytes");
  assertStringIncludes(secretWeakness("a".repeat(31))!, "31 bytes");
  assertStringIncludes(secretWeakness("a".repeat(64))!, "1 different characters");
  assertStringIncludes(secretWeakness("0101010101".repeat(5))!, "2 different characters");
  // Ten distinct characters, but a pattern: far fewer bits than its length suggests.
  assert(secretWeakness("abcdefghij" + "a".repeat(30)));
  assert(secretWeakness("passwordpasswordpasswordpassword"));
});

Deno.test("secret strength: what the docs generate, and Parley's own, pass", () => {
  for (let i = 0; i < 200; i++) {
    assertEquals(secretWeakness(opensslLike()), undefined);
    assertEquals(secretWeakness(randomId(32)), undefined);
  }
  // 64 hex digits (`openssl rand -hex 32`).
  const hex = [...crypto.getRandomValues(new Uint8Array(32))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  assertEquals(secretWeakness(hex), undefined);
});
