/**
 * Lines that are not UTF-8 (Latin-1 from an older client) keep their letters both ways: from the
 * network into history and to attached clients, and from an attached client to the network.
 */
import { assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { poll } from "../support/poll.ts";

const latin1 = (text: string) => new Uint8Array([...text].map((c) => c.charCodeAt(0)));

Deno.test("irc: a Latin-1 line is read as such, not as U+FFFD", async () => {
  const s = await setupBouncer();
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  try {
    const c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}`, PASSWORD, [], "client");
    // Two lines in one write: one UTF-8, one Latin-1.
    await bob.sendBytes(
      new Uint8Array([
        ...new TextEncoder().encode("PRIVMSG alice :ünïcode ✓\r\n"),
        ...latin1("PRIVMSG alice :caf\xe9 na\xefve \xa3\r\n"),
      ]),
    );
    const path = `/api/connection/${s.cid}/conversation/bob/messages`;
    const texts = await poll("both lines stored", async () => {
      const got = ((await s.api.get(path)).body.messages ?? []).map((m: { message: string }) =>
        m.message
      );
      return got.length >= 2 && got;
    });
    assertEquals(texts.slice(-2), ["ünïcode ✓", "café naïve £"]);
    await c.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "café naïve £");
    // And from the attached client to the network: UTF-8 on the way out.
    await c.sendBytes(latin1("PRIVMSG bob :r\xe9sum\xe9\r\n"));
    await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "résumé");
    c.close();
  } finally {
    await bob.close();
    await s.close();
  }
});
