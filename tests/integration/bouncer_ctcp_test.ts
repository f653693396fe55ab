/**
 * CTCP with IRC clients attached: the clients answer a request themselves, so Parley does not
 * answer too, and a client's answer (a NOTICE wrapped in \x01) goes to the asker as it is, never
 * stored as a notice in the conversation. With no client attached Parley answers (irc_test).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";

Deno.test("bouncer: a CTCP request is answered by the attached clients, not by Parley too", async () => {
  const s = await setupBouncer();
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  try {
    const c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}`, PASSWORD, [], "client");
    await c.send("PING :ready");
    await c.waitFor((l) => l.command === "PONG");
    await bob.say("alice", "\x01VERSION\x01");
    const asked = await c.waitFor((l) =>
      l.command === "PRIVMSG" && l.params[1] === "\x01VERSION\x01"
    );
    assertEquals(asked.prefix.split("!")[0], "bob");
    await c.send("NOTICE bob :\x01VERSION testclient 1.0\x01");
    const versions = () =>
      bob.lines.filter((l) => l.command === "NOTICE" && l.params[1]?.startsWith("\x01VERSION"));
    await bob.waitFor((l) =>
      l.command === "NOTICE" && l.params[1] === "\x01VERSION testclient 1.0\x01"
    );
    // Parley's own answer, had it made one, was on its way before the client's.
    await new Promise((r) => setTimeout(r, 500));
    assertEquals(versions().map((l) => l.params[1]), ["\x01VERSION testclient 1.0\x01"]);
    // The client's answer is no line of the conversation with bob.
    const history = await s.api.get(`/api/connection/${s.cid}/conversation/bob/messages`);
    const texts = (history.body.messages ?? []).map((m: { message: string }) => m.message);
    assert(!texts.some((t: string) => t.includes("VERSION")), JSON.stringify(texts));
    c.close();
  } finally {
    await bob.close();
    await s.close();
  }
});
