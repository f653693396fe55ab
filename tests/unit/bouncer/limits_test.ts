/** bouncer/limits.ts: what a client's line costs against its pacing, and the default bounds. */
import { assert, assertEquals } from "../../support/assert.ts";
import { DEFAULT_LIMITS, lineCost } from "../../../bouncer/limits.ts";

Deno.test("lineCost: CHATHISTORY costs a twentieth, however the line is written", () => {
  for (
    const line of [
      "CHATHISTORY LATEST #c * 50",
      "chathistory LATEST #c * 50",
      "@label=a CHATHISTORY LATEST #c * 50",
      ":me CHATHISTORY LATEST #c * 50",
      "@label=a :me  CHATHISTORY LATEST #c * 50",
      "CHATHISTORY",
    ]
  ) assertEquals(lineCost(line), 0.05, line);
});

Deno.test("lineCost: every other line costs one, the server's lines and odd ones too", () => {
  for (
    const line of [
      "PRIVMSG #c :CHATHISTORY LATEST",
      "PRIVMSG #c :hi",
      "CHATHISTORYX LATEST",
      "@label=a",
      ":me",
      "",
      "MARKREAD #c *",
    ]
  ) assertEquals(lineCost(line), 1, JSON.stringify(line));
});

Deno.test("limits: 400 CHATHISTORY requests fit the burst, then 100 a second", () => {
  const { lineBurst, lineIntervalMs } = DEFAULT_LIMITS;
  const cost = lineCost("CHATHISTORY LATEST #c * 50");
  assertEquals(Math.round(lineBurst / cost), 400);
  assertEquals(Math.round(1000 / lineIntervalMs / cost), 100);
  // Lines for the server: a burst of 20, then 5 a second.
  assertEquals(lineBurst, 20);
  assertEquals(1000 / lineIntervalMs, 5);
  assert(DEFAULT_LIMITS.unregisteredPerAddress < DEFAULT_LIMITS.unregistered);
});

// What a client's line costs against its pacing: CHATHISTORY a twentieth, however written.

Deno.test("lineCost: CHATHISTORY is cheap, with tags, a source or in lower case", () => {
  assertEquals(lineCost("CHATHISTORY LATEST #a * 50"), 0.05);
  assertEquals(lineCost("@label=7 CHATHISTORY LATEST #a * 50"), 0.05);
  assertEquals(lineCost("@label=7 :me chathistory TARGETS a b 5"), 0.05);
  assertEquals(lineCost("PRIVMSG #a :CHATHISTORY"), 1);
  assertEquals(lineCost("@label=7"), 1);
  assertEquals(lineCost(""), 1);
});

Deno.test("lineCost: a channel's modes or lists asked is cheap; a mode change is not", () => {
  const asked = ["MODE #a", "@label=7 MODE #a", "mode #a ", ":me MODE  #a", "MODE #a b"];
  for (const line of [...asked, "MODE #a +b", "MODE #a e", "MODE #a I"]) {
    assertEquals(lineCost(line), 0.05, line);
  }
  for (const line of ["MODE #a +k key", "MODE #a +b x!*@*", "MODE #a :+i", "MODE", "MODE "]) {
    assertEquals(lineCost(line), 1, line);
  }
});
