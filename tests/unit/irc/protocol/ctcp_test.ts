/** irc/protocol/ctcp.ts: the answers to CTCP requests, and reading the answers to the user's. */
import { assertEquals } from "../../../support/assert.ts";
import { ctcpAnswer, ctcpParts } from "../../../../irc/protocol/ctcp.ts";
import { answersOf } from "../../../../irc/chat/inbound/answers.ts";
import { parseMessage } from "../../../../irc/protocol/message.ts";

Deno.test("ctcpAnswer answers the usual requests, briefly", () => {
  assertEquals(ctcpAnswer("version", "", "Parley 1"), "VERSION Parley 1");
  assertEquals(ctcpAnswer("PING", "x".repeat(500), "P"), `PING ${"x".repeat(64)}`);
  assertEquals(ctcpAnswer("CLIENTINFO", "", "P"), "CLIENTINFO CLIENTINFO PING TIME VERSION");
  assertEquals(ctcpAnswer("DCC", "SEND x", "P"), undefined);
});

Deno.test("ctcpParts reads a whole CTCP's type and argument, nothing else", () => {
  assertEquals(ctcpParts("\x01version irssi 1.4 (x)\x01"), {
    type: "VERSION",
    arg: "irssi 1.4 (x)",
  });
  assertEquals(ctcpParts("\x01PING\x01"), { type: "PING", arg: "" });
  assertEquals(ctcpParts("\x01PING 123"), undefined, "unclosed: plain text");
  assertEquals(ctcpParts("hello"), undefined);
});

Deno.test("a CTCP answer (NOTICE) is told as `ctcp reply`; a plain notice answers nothing", () => {
  const state = { list: [] };
  const told = (line: string) => answersOf(parseMessage(line)!, undefined, state, () => []);
  assertEquals(told(":bob!b@h NOTICE alice :\x01VERSION rawbot 1.0\x01"), [
    ["ctcp reply", { nick: "bob", type: "VERSION", text: "rawbot 1.0" }],
  ]);
  assertEquals(told(":bob!b@h NOTICE alice :\x01PING 42\x01"), [
    ["ctcp reply", { nick: "bob", type: "PING", text: "42" }],
  ]);
  assertEquals(told(":bob!b@h NOTICE alice :hello"), []);
  assertEquals(
    told(":irc.test NOTICE alice :\x01VERSION x\x01"),
    [],
    "a server is nobody's client",
  );
});
