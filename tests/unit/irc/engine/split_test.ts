/** irc/engine/split.ts: a long text split into lines within the byte limit. */
import { assert, assertEquals } from "../../../support/assert.ts";
import { byteLength, splitText, textBudget } from "../../../../irc/engine/split.ts";

Deno.test("splitText breaks at spaces within the byte limit", () => {
  assertEquals(splitText("aaa bbb ccc", 7), ["aaa bbb", "ccc"]);
  assertEquals(splitText("one\ntwo\r\n\nthree", 100), ["one", "two", "three"]);
  assertEquals(splitText("abcdefghij", 4), ["abcd", "efgh", "ij"]);
  // Multi-byte characters are never cut in half.
  const parts = splitText("ééééé", 4);
  assertEquals(parts, ["éé", "éé", "é"]);
  for (const p of splitText("word ".repeat(300), 100)) assert(byteLength(p) <= 100);
  assertEquals(splitText("word ".repeat(300), 100).join(" "), "word ".repeat(300).trim());
});

Deno.test("splitText cuts a long word between grapheme clusters, never inside one", () => {
  const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
  const clusters = (t: string) => [...segmenter.segment(t)].map((s) => s.segment);
  // A family (25 bytes: four people and three joiners), a flag (8), a thumb with its skin tone
  // (8) and an "e" with a combining accent (3): cut at code points, each would come apart.
  const family = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}";
  const word = `${family}\u{1F1EB}\u{1F1F7}\u{1F44D}\u{1F3FD}e\u0301`.repeat(3);
  for (const max of [26, 30, 33, 40, 50]) {
    const parts = splitText(word, max);
    assertEquals(parts.join(""), word, `nothing lost at ${max}`);
    for (const p of parts) assert(byteLength(p) <= max, `${max}: a part fits`);
    assertEquals(parts.flatMap(clusters), clusters(word), `${max}: every cluster whole`);
  }
  assertEquals(splitText("e\u0301".repeat(4), 6), ["e\u0301e\u0301", "e\u0301e\u0301"]);
  // A single cluster longer than a line is still cut (between code points) rather than sent whole.
  const zalgo = "a" + "\u0301".repeat(40);
  for (const p of splitText(zalgo, 20)) assert(byteLength(p) <= 20);
});

Deno.test("textBudget leaves room for the relayed prefix", () => {
  const budget = textBudget("PRIVMSG", "#parley", "alice");
  assert(budget < 512 - "PRIVMSG #parley :".length - 2 - "alice".length);
  assert(budget > 350);
});
