/** What the composer makes of a typed line (static/app/commands.ts). */
import { assertEquals } from "../../../support/assert.ts";
import { parseInput } from "../../../../static/app/commands.ts";

Deno.test("commands: text, server commands, client commands, unknown, escaped slash", () => {
  assertEquals(parseInput("  "), { kind: "empty" });
  assertEquals(parseInput("hello\nworld"), { kind: "send", message: "hello\nworld" });
  assertEquals(parseInput("/ME waves"), { kind: "send", message: "/me waves", command: "me" });
  assertEquals(parseInput("/join #a key"), {
    kind: "send",
    message: "/join #a key",
    command: "join",
  });
  assertEquals(parseInput("/disconnect"), {
    kind: "send",
    message: "/disconnect",
    command: "disconnect",
  });
  assertEquals(parseInput("/search foo bar"), {
    kind: "client",
    command: "search",
    args: "foo bar",
  });
  assertEquals(parseInput("/frobnicate x"), { kind: "unknown", command: "frobnicate" });
  assertEquals(parseInput("//not a command"), { kind: "send", message: "//not a command" });
});
