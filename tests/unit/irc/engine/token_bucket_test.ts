/** irc/engine/token_bucket.ts: the pace of lines sent to a server. */
import { assertEquals } from "../../../support/assert.ts";
import { TokenBucket } from "../../../../irc/engine/token_bucket.ts";

Deno.test("TokenBucket allows a burst, then one line per interval", () => {
  let now = 0;
  const bucket = new TokenBucket(3, 1000, () => now);
  assertEquals([bucket.take(), bucket.take(), bucket.take()], [0, 0, 0]);
  assertEquals(bucket.take(), 1000);
  now = 500;
  assertEquals(bucket.take(), 500);
  now = 1000;
  assertEquals(bucket.take(), 0);
  now = 100_000;
  assertEquals(Math.floor(bucket.available()), 3);
});
