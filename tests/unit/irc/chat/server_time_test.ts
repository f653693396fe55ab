/** irc/chat/server_time.ts: when a server's time is believed. */
import { assertEquals } from "../../../support/assert.ts";
import { lineTime } from "../../../../irc/chat/server_time.ts";

Deno.test("lineTime believes a server time only when negotiated, sane and not ahead of ours", () => {
  const now = Date.UTC(2026, 0, 1) * 1000;
  const hourAgo = now / 1000 - 3_600_000;
  assertEquals(lineTime(hourAgo, true, now), hourAgo * 1000);
  assertEquals(lineTime(hourAgo, false, now), now);
  for (const bad of [Date.UTC(3100, 0, 1), Date.UTC(1000, 0, 1), Date.UTC(1989, 11, 31), NaN]) {
    assertEquals(lineTime(bad, true, now), now, String(bad));
  }
  // A server clock running fast: its line arrived now, so it was said no later.
  assertEquals(lineTime(now / 1000 + 3_600_000, true, now), now, "an hour ahead");
  assertEquals(lineTime(now / 1000 + 1, true, now), now, "a millisecond ahead");
  assertEquals(lineTime("2025-01-01", true, now), now);
});
