import { assert, assertEquals } from "../../../support/assert.ts";
import {
  cssColor,
  findLinks,
  linkify,
  parseFormatting,
  stripFormatting,
} from "../../../../static/app/irc_format.ts";

Deno.test("irc formatting: bold, italic, underline toggle and reset", () => {
  assertEquals(parseFormatting("a\x02b\x02c"), [
    { text: "a" },
    { text: "b", bold: true },
    { text: "c" },
  ]);
  assertEquals(parseFormatting("\x1dit\x1fboth\x0fplain"), [
    { text: "it", italic: true },
    { text: "both", italic: true, underline: true },
    { text: "plain" },
  ]);
  assertEquals(parseFormatting("\x1estrike\x11mono"), [
    { text: "strike", strike: true },
    { text: "mono", strike: true, mono: true },
  ]);
});

Deno.test("irc formatting: colours with and without background, and colour reset", () => {
  assertEquals(parseFormatting("\x034red\x03 none"), [{ text: "red", fg: 4 }, { text: " none" }]);
  assertEquals(parseFormatting("\x0304,12x"), [{ text: "x", fg: 4, bg: 12 }]);
  // A comma not followed by digits is text.
  assertEquals(parseFormatting("\x035,hi"), [{ text: ",hi", fg: 5 }]);
  // Digits after a two-digit colour stay text.
  assertEquals(parseFormatting("\x03041234"), [{ text: "1234", fg: 4 }]);
  assertEquals(parseFormatting("\x04ff0000hex"), [{ text: "hex", fg: "#ff0000" }]);
  assertEquals(cssColor(4), "#ff0000");
  assertEquals(cssColor(99), undefined);
});

Deno.test("irc formatting: control characters never reach the text", () => {
  const text = stripFormatting("\x02\x07bell\x16rev\x0f<b>&amp;</b>\ttab");
  assertEquals(text, "bellrev<b>&amp;</b> tab");
  assert([...text].every((ch) => ch.charCodeAt(0) >= 32), "no control characters");
});

Deno.test("links: found in text, trailing punctuation left out, brackets balanced", () => {
  assertEquals(linkify("see https://example.com/a."), [
    { text: "see " },
    { text: "https://example.com/a", href: "https://example.com/a" },
    { text: "." },
  ]);
  assertEquals(
    linkify("(https://en.wikipedia.org/wiki/Foo_(bar))")[1].href,
    "https://en.wikipedia.org/wiki/Foo_(bar)",
  );
  assertEquals(linkify("javascript:alert(1) ftp://x"), [{ text: "javascript:alert(1) ftp://x" }]);
  assertEquals(findLinks("\x02http://a.example/x\x02 and http://a.example/x"), [
    "http://a.example/x",
  ]);
});
