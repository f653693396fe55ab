import { assertEquals } from "../support/assert.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { RawIrcClient } from "../support/irc_client.ts";

Deno.test("the test harness runs a real ngircd that relays channel messages", async () => {
  const irc = await startIrcServer();
  const a = await RawIrcClient.connect(irc.port, "alice");
  const b = await RawIrcClient.connect(irc.port, "bob");
  try {
    await a.join("#harness");
    await b.join("#harness");
    await a.say("#harness", "hello bob");
    const got = await b.waitFor((l) => l.command === "PRIVMSG" && l.params[0] === "#harness");
    assertEquals(got.nick, "alice");
    assertEquals(got.params[1], "hello bob");
  } finally {
    await a.close();
    await b.close();
    await irc.close();
  }
});
