/**
 * irc/engine/backoff.ts: the reconnect delay, doubling with jitter; the per-host connect pace,
 * PARLEY_CONNECT_DELAY between connects to one host, jittered.
 */
import { assert, assertEquals } from "../../../support/assert.ts";
import { backoffDelay, connectGap } from "../../../../irc/engine/backoff.ts";
import { parseConfig } from "../../../../config.ts";

Deno.test("connect pace: the configured delay, a quarter either way", () => {
  assertEquals(connectGap(4000, () => 0), 3000);
  assertEquals(connectGap(4000, () => 0.5), 4000);
  assertEquals(connectGap(4000, () => 0.999), 5000 - 2);
  assertEquals(connectGap(0, () => 0.7), 0, "no delay stays none");
  const gaps = Array.from({ length: 200 }, () => connectGap(10));
  assert(gaps.every((g) => g >= 8 && g <= 13), String(gaps));
  assert(new Set(gaps).size > 1, "not all in step");
});

Deno.test("connect pace: a loopback test server's pace is the configured one, in fractions of a second", () => {
  const config = parseConfig({ PARLEY_HOME: "/tmp/x", PARLEY_CONNECT_DELAY: "0.01" });
  assertEquals(config.connectDelay, 10);
  assertEquals(parseConfig({ PARLEY_HOME: "/tmp/x" }).connectDelay, 4000);
});

Deno.test("backoffDelay doubles with jitter and stops at the maximum", () => {
  const timing = { backoffBase: 4000, backoffMax: 600_000 };
  assertEquals(backoffDelay(0, timing, () => 0), 2000);
  assertEquals(backoffDelay(0, timing, () => 1), 4000);
  assertEquals(backoffDelay(3, timing, () => 1), 32_000);
  assertEquals(backoffDelay(30, timing, () => 1), 600_000);
  assertEquals(backoffDelay(30, timing, () => 0), 300_000);
  const a = backoffDelay(2, timing, () => 0.25);
  assert(a >= 8000 && a <= 16_000);
});
