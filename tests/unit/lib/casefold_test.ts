/** lib/casefold.ts: IRC casemapping. */
import { assert, assertEquals } from "../../support/assert.ts";
import { ircLower, isChannel } from "../../../lib/casefold.ts";

Deno.test("ircLower uses rfc1459 casemapping by default", () => {
  // rfc1459: [ ] \ ^ are the upper-case forms of { } | ~.
  assertEquals(ircLower("#Parley[Dev]\\^"), "#parley{dev}|~");
  assertEquals(ircLower("Nick[A]", "ascii"), "nick[a]");
  assertEquals(ircLower("A^~", "strict-rfc1459"), "a^~");
  assert(isChannel("#x"));
  assert(!isChannel("bob"));
  assert(!isChannel("#"));
});
