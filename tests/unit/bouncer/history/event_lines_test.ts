/**
 * bouncer/history/lines.ts makes a stored channel event's IRC line from its fields alone: the
 * row's text is never read (new rows keep none), so no sentence has to be parsed back.
 */
import { assertEquals } from "../../../support/assert.ts";
import { historyLine } from "../../../../bouncer/history/lines.ts";
import type { HistoryLine } from "../../../../store/history_types.ts";
import {
  CHANNEL,
  type KeptFields,
  type KeptKind,
  LINE_KINDS,
} from "../../../../protocol/events.ts";
import { ircLower } from "../../../../lib/casefold.ts";

const target = {
  name: "#Chan",
  conversationId: "#chan",
  isChannel: true,
  nick: "alice",
  fold: ircLower,
};

/** A row of `kind` with `fields` and an empty text, as the store hands new rows out. */
function row<K extends KeptKind>(kind: K, from: string, fields: KeptFields<K>): HistoryLine {
  return { conversation: 7, ts: 1_767_225_600_123_456, type: kind, from, text: "", fields };
}

Deno.test("history lines: every kept event's IRC line from its fields, with no text", () => {
  const cases: [HistoryLine, string][] = [
    [row("join", "bob", { nick: "bob" }), ":bob JOIN #Chan"],
    [row("part", "bob", { nick: "bob" }), ":bob PART #Chan"],
    [row("part", "bob", { nick: "bob", message: "bye: now" }), ":bob PART #Chan :bye: now"],
    [row("quit", "bob", { nick: "bob", message: "gone" }), ":bob QUIT gone"],
    [row("quit", "bob", { nick: "bob" }), ":bob QUIT :"],
    [
      row("kick", "op", { nick: "carol", kicker: "op", message: "out" }),
      ":op KICK #Chan carol out",
    ],
    [row("nick_change", "bob", { old_nick: "bob", new_nick: "bobby" }), ":bob NICK bobby"],
    [row("topic", "bob", { nick: "bob", topic: "a topic" }), ":bob TOPIC #Chan :a topic"],
    [row("topic", "bob", { nick: "bob", topic: "" }), ":bob TOPIC #Chan :"],
    [row("mode", "bob", { nick: "bob", mode: "+ov bob dana" }), ":bob MODE #Chan +ov bob dana"],
    [row("part", "bob", { nick: "bob", message: "" }), ":bob PART #Chan :"],
    [row("kick", "op", { nick: "carol", kicker: "op" }), ":op KICK #Chan carol :"],
    [row("quit", "bob", { nick: "bob", message: "see you" }), ":bob QUIT :see you"],
    [row("mode", "bob", { nick: "bob", mode: "  +b   x!*@*  " }), ":bob MODE #Chan +b x!*@*"],
    // A field cannot break the line, nor a name take more than its word.
    [row("part", "bob", { nick: "bob", message: "a\r\nQUIT" }), ":bob PART #Chan :a  QUIT"],
    [row("topic", "bob", { nick: "bob", topic: "a\nb" }), ":bob TOPIC #Chan :a b"],
    [
      row("kick", "op", { nick: "car ol:x", kicker: "op", message: "out" }),
      ":op KICK #Chan carolx out",
    ],
    [row("nick_change", "bob", { old_nick: "bob", new_nick: "a b,c" }), ":bob NICK abc"],
    [row("mode", "bob", { nick: "bob", mode: "+b :x" }), ":bob MODE #Chan +b x"],
    // A mode keeps at most 13 words, so the line stays within 15 parameters.
    [
      row("mode", "bob", { nick: "bob", mode: `+${"v".repeat(20)} ${nicks(20)}` }),
      `:bob MODE #Chan +${"v".repeat(20)} ${nicks(12)}`,
    ],
  ];
  for (const [l, want] of cases) {
    const got = historyLine(l, target);
    assertEquals(
      got,
      `@time=2026-01-01T00:00:00.123Z;msgid=${got?.match(/msgid=([^ ;]+)/)?.[1]} ${want}`,
      `${l.type}: ${JSON.stringify(l.fields)}`,
    );
  }
});

Deno.test("history lines: a row lacking what its IRC line needs has none", () => {
  const rows: HistoryLine[] = [
    row("nick_change", "bob", { old_nick: "bob", new_nick: "" }),
    row("mode", "bob", { nick: "bob", mode: "" }),
    row("mode", "bob", { nick: "bob", mode: "   " }),
  ];
  for (const l of rows) assertEquals(historyLine(l, target), undefined, JSON.stringify(l.fields));
});

/** `n` nicks, `n1 n2 ...`. */
function nicks(n: number): string {
  return Array.from({ length: n }, (_, i) => `n${i + 1}`).join(" ");
}

Deno.test("history lines: an event row kept as text (no fields) has no IRC line", () => {
  const old: HistoryLine = {
    conversation: 7,
    ts: 1_767_225_600_123_456,
    type: "kick",
    from: "op",
    text: "carol was kicked by op: out",
  };
  assertEquals(historyLine(old, target), undefined);
});

Deno.test("history lines: every kind with an IRC form makes its line from its row alone", () => {
  for (const [type, kind] of Object.entries(LINE_KINDS)) {
    if (!("irc" in kind) || !kind.irc) continue;
    // Each field the form names holds one word, as a row of that kind would.
    const named = kind.irc.params.map((p) =>
      typeof p === "string" ? p : "text" in p ? p.text : p.words
    );
    const fields = Object.fromEntries(
      named.filter((f) => f !== CHANNEL).map((f) => [f, "w"]),
    ) as KeptFields;
    const l: HistoryLine = {
      conversation: 7,
      ts: 1,
      type: type as KeptKind,
      from: "x",
      text: "",
      fields,
    };
    const line = historyLine(l, target);
    assertEquals(line?.split(" ").slice(1, 3), [":x", kind.irc.command], type);
  }
});
