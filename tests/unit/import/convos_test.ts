/** Convos log lines (import/convos.ts): which are messages, of which type, from whom. */
import { assertEquals } from "../../support/assert.ts";
import { parseConvosMessage } from "../../../import/convos.ts";

Deno.test("convos log lines: messages, notices and actions; events and unknown lines are not", () => {
  assertEquals(parseConvosMessage("<bob> hello there"), {
    type: "private",
    from: "bob",
    text: "hello there",
  });
  assertEquals(parseConvosMessage("<bob>"), { type: "private", from: "bob", text: "" });
  assertEquals(parseConvosMessage("-NickServ- identify first"), {
    type: "notice",
    from: "NickServ",
    text: "identify first",
  });
  assertEquals(parseConvosMessage("* bob waves"), { type: "action", from: "bob", text: "waves" });
  // A message keeps its line breaks and the angle brackets inside its text.
  assertEquals(parseConvosMessage("<bob> a <b>\nc")?.text, "a <b>\nc");
  for (const line of ["-!- bob joined #room", "bob said", "< bob> hi", "*bob waves", ""]) {
    assertEquals(parseConvosMessage(line), undefined, line);
  }
});
