/** irc/protocol/ctcp.ts: the answers to CTCP requests. */
import { assertEquals } from "../../../support/assert.ts";
import { ctcpAnswer } from "../../../../irc/protocol/ctcp.ts";

Deno.test("ctcpAnswer answers the usual requests, briefly", () => {
  assertEquals(ctcpAnswer("version", "", "Parley 1"), "VERSION Parley 1");
  assertEquals(ctcpAnswer("PING", "x".repeat(500), "P"), `PING ${"x".repeat(64)}`);
  assertEquals(ctcpAnswer("CLIENTINFO", "", "P"), "CLIENTINFO CLIENTINFO PING TIME VERSION");
  assertEquals(ctcpAnswer("DCC", "SEND x", "P"), undefined);
});
