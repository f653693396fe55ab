import { assertEquals } from "../../support/assert.ts";
import { LOGIN_LIMITS, LoginThrottle } from "../../../http/throttle.ts";

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

Deno.test("throttle: attempts count as failures from their beginning until settled", () => {
  const t = new LoginThrottle({ ...limits, addressMax: 100 });
  const begun = Array.from({ length: 10 }, () => t.begin("a@x", "1.1.1.1", 0));
  const attempts = begun.filter((b) => !("wait" in b));
  assertEquals(attempts.length, 3, "only the free tries begin before any is settled");
  assertEquals(begun.slice(3).map((b) => "wait" in b && b.wait), Array(7).fill(1000));
  for (const a of attempts) if (!("wait" in a)) a.fail();
  assertEquals(t.wait("a@x", "1.1.1.1", 0), 1000, "settled failures stay counted");
});

Deno.test("throttle: a success forgets the pair and gives back its place in the budget", () => {
  const t = new LoginThrottle(limits);
  for (let i = 0; i < 20; i++) {
    const a = t.begin("owner@x", "7.7.7.7", i);
    if ("wait" in a) throw new Error(`attempt ${i} waits ${a.wait}`);
    a.succeed();
  }
  // Twenty logins from one place (past its budget of 10 failures) cost it nothing.
  assertEquals(t.wait("other@x", "7.7.7.7", 20), 0);
});

Deno.test("throttle: other nodes hear of an attempt when it begins, and of its success", () => {
  const heard: string[] = [];
  const a = new LoginThrottle(limits);
  const b = new LoginThrottle(limits);
  a.share = (kind, email, address, now) => {
    heard.push(kind);
    if (kind === "fail") b.fail(email, address, now, true);
    else b.succeed(email, address, true, now);
  };
  const pending = [0, 1, 2].map(() => a.begin("v@x", "8.8.8.8", 5));
  assertEquals(heard, ["fail", "fail", "fail"]);
  assertEquals(b.wait("v@x", "8.8.8.8", 5), 1000, "node b counts the pending guesses too");
  const first = pending[0];
  if ("wait" in first) throw new Error("the first attempt waits");
  first.succeed();
  assertEquals(heard.at(-1), "succeed");
  assertEquals(b.wait("v@x", "8.8.8.8", 5), 0);
});
