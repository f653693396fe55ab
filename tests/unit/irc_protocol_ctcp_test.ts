/** One CTCP helper (irc/protocol/ctcp.ts): wrapping, unwrapping, ACTION, and Parley's answers. */
import { assert, assertEquals } from "../support/assert.ts";
import {
  actionText,
  actionWrap,
  ctcpAnswer,
  ctcpUnwrap,
  ctcpWrap,
  isAction,
} from "../../irc/protocol/ctcp.ts";

Deno.test("ctcp: wrap and unwrap", () => {
  assertEquals(ctcpWrap("VERSION"), "\x01VERSION\x01");
  assertEquals(ctcpWrap("PING", "123"), "\x01PING 123\x01");
  assertEquals(ctcpUnwrap("\x01PING 1 2\x01"), { type: "PING", arg: "1 2" });
  assertEquals(ctcpUnwrap("\x01VERSION\x01"), { type: "VERSION", arg: "" });
  assertEquals(
    ctcpUnwrap("\x01TIME"),
    { type: "TIME", arg: "" },
    "the closing \\x01 may be missing",
  );
  assertEquals(ctcpUnwrap("plain"), undefined);
});

Deno.test("ctcp: ACTION", () => {
  assertEquals(actionWrap("waves"), "\x01ACTION waves\x01");
  assertEquals(actionText("\x01ACTION waves\x01"), "waves");
  assertEquals(actionText("\x01ACTION waves"), "waves", "unterminated");
  assertEquals(actionText("\x01ACTION\x01"), "");
  assertEquals(actionText("\x01ACTION \x01"), "");
  assertEquals(actionText("\x01ACTIONS x\x01"), undefined);
  assertEquals(actionText("\x01VERSION\x01"), undefined);
  assertEquals(actionText("ACTION waves"), undefined);
  assert(isAction("\x01ACTION waves\x01") && !isAction("waves"));
});

Deno.test("ctcp: the requests Parley answers", () => {
  assertEquals(ctcpAnswer("version", "", "Parley 1"), "VERSION Parley 1");
  assertEquals(ctcpAnswer("PING", "x".repeat(100), "v"), `PING ${"x".repeat(64)}`);
  assertEquals(ctcpAnswer("CLIENTINFO", "", "v"), "CLIENTINFO CLIENTINFO PING TIME VERSION");
  assertEquals(ctcpAnswer("FINGER", "", "v"), undefined);
});
