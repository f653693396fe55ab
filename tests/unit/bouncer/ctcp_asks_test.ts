/** bouncer/ctcp_asks.ts: who waits for a CTCP answer, bounded in time and in count. */
import { assertEquals } from "../../support/assert.ts";
import { CtcpAsks } from "../../../bouncer/ctcp_asks.ts";

Deno.test("ctcp asks: an answer is its asker's, once, by nick and type", () => {
  const asks = new CtcpAsks<string>();
  asks.add("a", "bob", "version", 0);
  asks.add("b", "bob", "VERSION", 1);
  asks.add("c", "bob", "PING", 2);
  assertEquals(asks.take("bob", "TIME", 3), undefined, "nobody asked bob the time");
  assertEquals(asks.take("carol", "VERSION", 3), undefined);
  assertEquals(asks.take("bob", "VERSION", 3), "a", "the oldest request first");
  assertEquals(asks.take("bob", "version", 3), "b");
  assertEquals(asks.take("bob", "VERSION", 3), undefined, "each answered once");
  assertEquals(asks.take("bob", "PING", 3), "c");
});

Deno.test("ctcp asks: a minute at most, and 32 waiting at most", () => {
  const asks = new CtcpAsks<string>();
  asks.add("a", "bob", "VERSION", 0);
  assertEquals(asks.take("bob", "VERSION", 60_000), undefined, "too late: everyone's");
  for (let i = 0; i < 33; i++) asks.add(`c${i}`, `n${i}`, "VERSION", 100);
  assertEquals(asks.take("n0", "VERSION", 200), undefined, "the oldest gave way");
  assertEquals(asks.take("n1", "VERSION", 200), "c1");
  assertEquals(asks.take("n32", "VERSION", 200), "c32");
});
