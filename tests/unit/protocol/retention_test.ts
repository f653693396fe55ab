/** Retention durations as written, and PARLEY_MESSAGE_RETENTION in the configuration. */
import { assertEquals, assertThrows } from "../../support/assert.ts";
import { retentionDays } from "../../../protocol/retention.ts";
import { ConfigError, parseConfig } from "../../../config.ts";
import { retentionOf } from "../../../store/retention.ts";

Deno.test("retention durations: days, weeks, years; 0 or empty keeps all", () => {
  const read = (s: string) => retentionDays(s);
  assertEquals(["365d", "12w", "1y", "1D", " 30d ", "0", ""].map(read), [
    365,
    84,
    365,
    1,
    30,
    0,
    0,
  ]);
  for (const bad of ["30", "1m", "0d", "-1d", "101y", "1.5d", "d", "365 days"]) {
    assertEquals(read(bad), undefined, bad);
  }
});

Deno.test("PARLEY_MESSAGE_RETENTION: set, it decides over the admin setting", () => {
  const cfg = (v?: string) => parseConfig(v === undefined ? {} : { PARLEY_MESSAGE_RETENTION: v });
  assertEquals(cfg().messageRetentionDays, undefined);
  assertEquals(cfg("").messageRetentionDays, undefined);
  assertEquals(cfg("12w").messageRetentionDays, 84);
  assertEquals(retentionOf(cfg("12w"), { message_retention: "1y" }), 84);
  assertEquals(retentionOf(cfg("0"), { message_retention: "1y" }), 0);
  assertEquals(retentionOf(cfg(), { message_retention: "1y" }), 365);
  assertEquals(retentionOf(cfg(), { message_retention: "" }), 0);
  const err = assertThrows(() => cfg("forever"));
  assertEquals(err instanceof ConfigError, true);
  assertEquals(err.message.startsWith("PARLEY_MESSAGE_RETENTION:"), true);
});
