/** Channel mode strings (irc/protocol/modes.ts): which changes a MODE line makes, and the result. */
import { assertEquals } from "../../../support/assert.ts";
import {
  applyChannelModes,
  DEFAULT_CHANMODES,
  modeChanges,
} from "../../../../irc/protocol/modes.ts";

const PREFIX = ["o", "v"];
const after = (current: string, change: string, ...params: string[]) =>
  applyChannelModes(
    current,
    modeChanges(change, params, DEFAULT_CHANMODES, PREFIX),
    DEFAULT_CHANMODES,
    PREFIX,
  );

Deno.test("modes: the parameters a mode string's changes take", () => {
  assertEquals(modeChanges("+ov-l+k", ["a", "b", "key"], DEFAULT_CHANMODES, PREFIX), [
    { mode: "+o", param: "a" },
    { mode: "+v", param: "b" },
    { mode: "-l" },
    { mode: "+k", param: "key" },
  ]);
});

Deno.test("modes: a channel's modes after a change", () => {
  assertEquals(after("+nt", "+k", "secret"), "+ntk secret");
  assertEquals(after("+ntk secret", "+l-k", "9", "secret"), "+ntl 9");
  assertEquals(after("+ntl 9", "-nt"), "+l 9");
  assertEquals(after("+", "+b-o+i", "*!*@x", "alice"), "+i");
  // Unknown before: stays unknown, whatever the change.
  assertEquals(after("", "+n"), "");
  // A key set without its parameter (a server's odd line): not guessed.
  assertEquals(after("+n", "+k"), "");
  // A mode no list names.
  assertEquals(after("+n", "+R"), "");
  // A hostile server's endless parameter is not kept.
  assertEquals(after("+n", "+k", "x".repeat(500)), "");
});
