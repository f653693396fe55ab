/** Short names of IRC hosts (irc/host_id.ts). */
import { assertEquals } from "../../support/assert.ts";
import { hostId, hostShortName } from "../../../irc/host_id.ts";

Deno.test("host ids: short names of IRC hosts", () => {
  assertEquals(hostShortName("irc.libera.chat"), "libera");
  assertEquals(hostShortName("irc.eu.libera.chat"), "libera");
  assertEquals(hostShortName("127.0.0.1"), "localhost");
  assertEquals(hostShortName("localhost"), "localhost");
  assertEquals(hostShortName("chat.freenode.net"), "freenode");
  assertEquals(hostShortName("10.1.2.3"), "10-1-2-3");
  assertEquals(hostId("irc.example.org"), "irc-example");
});
