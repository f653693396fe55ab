/** RFC 3339 times with microseconds, written and read by protocol/time.ts. */
import { assertEquals } from "../../support/assert.ts";
import { formatMicros, parseMicros } from "../../../protocol/time.ts";

Deno.test("time: RFC 3339 with microseconds round-trips", () => {
  const us = Date.UTC(2026, 10, 22, 10, 0, 0, 123) * 1000 + 456;
  assertEquals(formatMicros(us), "2026-11-22T10:00:00.123456Z");
  assertEquals(parseMicros("2026-11-22T10:00:00.123456Z"), us);
  assertEquals(parseMicros("2026-11-22T11:00:00.123456+01:00"), us);
  assertEquals(parseMicros("2026-11-22T10:00:00Z"), Date.UTC(2026, 10, 22, 10) * 1000);
  assertEquals(parseMicros("2026-11-22T10:00:00"), Date.UTC(2026, 10, 22, 10) * 1000);
  for (
    const bad of [
      "",
      "yesterday",
      "2026-13-01T00:00:00Z",
      "2026-02-30T00:00:00Z",
      "2026-11-22T25:00:00Z",
    ]
  ) {
    assertEquals(parseMicros(bad), null, bad);
  }
});
