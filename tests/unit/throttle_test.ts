import { assertEquals } from "../support/assert.ts";
import { LOGIN_LIMITS, LoginThrottle } from "../../http/throttle.ts";

const limits = { ...LOGIN_LIMITS, free: 3, baseDelayMs: 1000, maxDelayMs: 8000, addressMax: 10 };

Deno.test("throttle: a pair backs off, doubling its wait past the free tries", () => {
  const t = new LoginThrottle({ ...limits, addressMax: 100 });
  for (let i = 0; i < 3; i++) {
    assertEquals(t.wait("a@x", "1.1.1.1", 0), 0);
    t.fail("a@x", "1.1.1.1", 0);
  }
  assertEquals(t.wait("a@x", "1.1.1.1", 0), 1000);
  assertEquals(t.wait("a@x", "1.1.1.1", 1000), 0);
  t.fail("a@x", "1.1.1.1", 1000);
  assertEquals(t.wait("a@x", "1.1.1.1", 1000), 2000);
  t.fail("a@x", "1.1.1.1", 3000);
  assertEquals(t.wait("a@x", "1.1.1.1", 3000), 4000);
  for (let i = 0; i < 5; i++) t.fail("a@x", "1.1.1.1", 10_000);
  assertEquals(t.wait("a@x", "1.1.1.1", 10_000), 8000, "capped at maxDelayMs");
});

Deno.test("throttle: a stranger's failures do not hold up the owner elsewhere", () => {
  const t = new LoginThrottle(limits);
  for (let i = 0; i < 9; i++) t.fail("owner@x", "6.6.6.6", 0);
  assertEquals(t.wait("owner@x", "6.6.6.6", 0) > 0, true);
  assertEquals(t.wait("owner@x", "2.2.2.2", 0), 0);
  t.succeed("owner@x", "6.6.6.6");
  assertEquals(t.wait("owner@x", "6.6.6.6", 0), 0, "success forgets the pair");
});

Deno.test("throttle: an address has a budget over all emails, and failures are forgotten", () => {
  const t = new LoginThrottle(limits);
  for (let i = 0; i < 10; i++) t.fail(`u${i}@x`, "3.3.3.3", i * 1000);
  assertEquals(t.wait("new@x", "3.3.3.3", 9000), 600_000 - 9000);
  assertEquals(t.wait("new@x", "4.4.4.4", 9000), 0);
  assertEquals(t.wait("new@x", "3.3.3.3", 600_001), 0, "the window slid past the first failure");
  for (let i = 0; i < 4; i++) t.fail("f@x", "5.5.5.5", 0);
  assertEquals(t.wait("f@x", "5.5.5.5", 3_600_001), 0, "forgotten after forgetMs");
});
