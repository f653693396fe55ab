/** The per-host connect pace: PARLEY_CONNECT_DELAY between connects to one host, jittered. */
import { assert, assertEquals } from "../../../support/assert.ts";
import { connectGap } from "../../../../irc/engine/backoff.ts";
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
