/**
 * A real terminal client: weechat (from Debian) runs in tmux and is set up by typing the commands
 * docs/bouncer.md gives (without TLS: the test listens on loopback). It attaches with SASL PLAIN,
 * shows the channel's recent history, and a line typed in it reaches IRC, the API and the web
 * client's event stream.
 */
import { assert } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { poll } from "../support/poll.ts";
import { startWeechat, type Weechat } from "../support/weechat.ts";

Deno.test("bouncer: weechat in tmux, set up as the docs say, attaches with SASL", async () => {
  const s = await setupBouncer();
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  // What every /events socket of the web client is fed.
  const events: { event: string; message?: string; conversation_id?: string; msgid?: string }[] =
    [];
  const unsubscribe = s.app.deps.bus.subscribe(1, (ev) => void events.push(ev as never));
  let w: Weechat | undefined;
  try {
    await s.app.deps.irc.send(1, s.cid, "", "/join #weechat");
    await bob.join("#weechat");
    await bob.waitForMember("#weechat", "alice");
    await bob.say("#weechat", "said before weechat came");
    await poll("the line is stored", async () => {
      const r = await s.api.get(`/api/connection/${s.cid}/conversation/%23weechat/messages`);
      return r.body.messages?.some((m: { message: string }) =>
        m.message === "said before weechat came"
      );
    });
    // docs/bouncer.md's weechat section, typed as a user would (no TLS on loopback).
    w = await startWeechat(s.port, `${EMAIL}/${s.cid}@weechat`, PASSWORD, "*");
    const screen = w;
    const hub = s.bouncer.relay.hub(1, s.cid);
    await poll("weechat attached", () => hub.clients.size === 1, 30_000).catch(async (err) => {
      throw new Error(`${err.message}\n${await screen.pane()}`);
    });
    await poll("weechat shows #weechat", async () => {
      await screen.type("/buffer #weechat");
      return (await screen.pane()).includes("#weechat");
    }, 30_000);
    // Debian's weechat (3.8) takes no chat history: the recent lines are replayed on attach.
    await w.shows(
      "weechat shows the line said before it came",
      (text) => text.includes("said before weechat came"),
    );
    await w.type("/msg #weechat typed in weechat");
    await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "typed in weechat", 30_000);
    await poll("the API has the line", async () => {
      const r = await s.api.get(`/api/connection/${s.cid}/conversation/%23weechat/messages`);
      return r.body.messages?.some((m: { message: string; from: string }) =>
        m.message === "typed in weechat" && m.from === "alice"
      );
    });
    const live = events.find((e) => e.event === "message" && e.message === "typed in weechat");
    assert(live?.conversation_id === "#weechat" && live.msgid, JSON.stringify(live));
  } finally {
    await w?.close();
    unsubscribe();
    await bob.close();
    await s.close();
  }
});
