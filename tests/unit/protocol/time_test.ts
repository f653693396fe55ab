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

Deno.test("time: every microsecond formats as a Date of its millisecond says", () => {
  // What the formatting was before it kept the last second: a Date per time, three digits more.
  const byDate = (us: number) => {
    const ms = Math.floor(us / 1000);
    const micros = String(us - ms * 1000).padStart(3, "0");
    return `${new Date(ms).toISOString().slice(0, 23)}${micros}Z`;
  };
  const base = Date.UTC(2026, 10, 22, 23, 59, 59, 998) * 1000;
  // Across a second's, a day's and a year's end, backwards too, and before 1970.
  const times = [
    base,
    base + 999,
    base + 1000,
    base + 2001,
    base + 2_000_000,
    base - 1,
    base + 1,
    Date.UTC(2026, 11, 31, 23, 59, 59, 999) * 1000 + 999,
    Date.UTC(2027, 0, 1) * 1000,
    -1,
    -1_000_001,
    0,
  ];
  let seed = 7;
  for (let i = 0; i < 2000; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    times.push(base + (seed % 5_000_000) - 2_500_000);
  }
  for (const us of times) assertEquals(formatMicros(us), byDate(us), String(us));
});
