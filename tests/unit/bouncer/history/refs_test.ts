/**
 * bouncer/history/refs.ts: the words of CHATHISTORY and MARKREAD read, each from a client and
 * checked: references, limits, targets, and the words echoed back.
 */
import { assertEquals } from "../../../support/assert.ts";
import {
  echo,
  isTargetWord,
  parseLimit,
  parseRef,
  parseTimestamp,
} from "../../../../bouncer/history/refs.ts";

Deno.test("refs: timestamps are UTC RFC 3339, cut to the millisecond, bounded", () => {
  assertEquals(parseTimestamp("2026-01-02T03:04:05.678Z"), Date.UTC(2026, 0, 2, 3, 4, 5, 678));
  assertEquals(parseTimestamp("2026-01-02T03:04:05.678999Z"), Date.UTC(2026, 0, 2, 3, 4, 5, 678));
  assertEquals(parseTimestamp("2026-01-02T03:04:05Z"), Date.UTC(2026, 0, 2, 3, 4, 5));
  assertEquals(parseTimestamp("2026-01-02T03:04:05.678+01:00"), undefined, "UTC only");
  assertEquals(parseTimestamp("2026-01-02"), undefined);
  assertEquals(parseTimestamp("1960-01-01T00:00:00Z"), undefined, "before the epoch");
  assertEquals(parseTimestamp("9999-01-01T00:00:00Z"), undefined, "past the store's times");
  assertEquals(parseTimestamp(`2026-01-02T03:04:05.${"1".repeat(40)}Z`), undefined, "too long");
});

Deno.test("refs: a reference is timestamp=, msgid= or, for LATEST, *", () => {
  assertEquals(parseRef("*", true), { kind: "latest" });
  assertEquals(parseRef("*"), "invalid");
  assertEquals(parseRef("timestamp=2026-01-02T03:04:05.678Z"), {
    kind: "timestamp",
    ms: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
  });
  assertEquals(parseRef("msgid=2s.mf2k0x1c"), {
    kind: "msgid",
    conversation: parseInt("2s", 36),
    ms: parseInt("mf2k0x1c", 36),
  });
  assertEquals(parseRef("msgid=not-ours"), "invalid");
  assertEquals(parseRef("msgid=zzzzzzzzzzz.zzzzzzzzzzz"), "invalid", "too late a time");
  assertEquals(parseRef("timestamp=yesterday"), "invalid");
  assertEquals(parseRef("unixtime=1"), "reftype");
  assertEquals(parseRef("=x"), "invalid");
  assertEquals(parseRef("timestamp"), "invalid");
});

Deno.test("refs: a limit is a positive integer, cut to the maximum", () => {
  assertEquals(parseLimit("1", 1000), 1);
  assertEquals(parseLimit("1000", 1000), 1000);
  assertEquals(parseLimit("5000", 1000), 1000);
  assertEquals(parseLimit("999999999", 1000), 1000);
  for (const w of ["0", "-1", "1.5", "", "ten", "1e3", "1234567890"]) {
    assertEquals(parseLimit(w, 1000), undefined, w);
  }
});

Deno.test("refs: a target is a channel or a nick, one printable word", () => {
  const good = [
    "#chan",
    "&local",
    "+modeless",
    "#a:b",
    "bob",
    "[bob]",
    "bob|away",
    "b".repeat(200),
  ];
  for (const w of good) {
    assertEquals(isTargetWord(w), true, w);
  }
  for (
    const w of [
      "",
      "*",
      "bob*",
      "bo?b",
      "bob!u@h",
      "$server",
      ":bob",
      "@bob",
      "%bob",
      "a b",
      "a,b",
      "b\x01",
      "b".repeat(201),
    ]
  ) assertEquals(isTargetWord(w), false, JSON.stringify(w));
});

Deno.test("refs: an echoed word is one word, bounded, never empty", () => {
  assertEquals(echo("#chan"), "#chan");
  assertEquals(echo(undefined), "*");
  assertEquals(echo(""), "*");
  assertEquals(echo(":a b,c\r\nd"), "abcd");
  assertEquals(echo("x".repeat(100)).length, 64);
});
