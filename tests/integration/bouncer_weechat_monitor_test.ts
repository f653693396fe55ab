/**
 * weechat's /notify through the listener, beside another client: weechat (from Debian, in tmux)
 * watches a nick with MONITOR on a server that has it (a scripted one: ngircd has no MONITOR); a
 * second client clearing its own list (`MONITOR C`) leaves weechat's alone, so weechat is still
 * told when the nick comes and goes.
 */
import { assert } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncerOn } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";
import { poll } from "../support/poll.ts";
import { startWeechat, type Weechat } from "../support/weechat.ts";

Deno.test("bouncer: weechat's /notify keeps working while another client clears its MONITOR list", async () => {
  const irc = startHostileIrc({ monitor: { limit: 100 } });
  const s = await setupBouncerOn(irc.url);
  const server = await irc.registered();
  let other: BouncerClient | undefined;
  let w: Weechat | undefined;
  try {
    w = await startWeechat(s.port, `${EMAIL}/${s.cid}@weechat`, PASSWORD);
    const screen = w;
    const hub = s.bouncer.relay.hub(1, s.cid);
    await poll("weechat attached", () => hub.clients.size === 1, 30_000).catch(async (err) => {
      throw new Error(`${err.message}\n${await screen.pane()}`);
    });
    await w.type("/buffer parley");
    await w.type("/notify add bob parley");
    await poll("bob watched", () => irc.watching(server).includes("bob"), 30_000);

    other = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@other`, PASSWORD, [], "other");
    await other.send("MONITOR + carol");
    await poll("carol watched", () => irc.watching(server).includes("carol"));
    await other.send("MONITOR C");
    await poll("carol forgotten", () => !irc.watching(server).includes("carol"));
    assert(irc.watching(server).includes("bob"), "weechat's nick is still watched");

    await irc.presence("bob", "bob!robert@bob.host");
    await w.shows(
      "weechat says bob came",
      (t) => /bob.*robert@bob\.host.*(connected|joined)/i.test(t),
    );
    await irc.presence("bob", undefined);
    await w.shows("weechat says bob left", (t) => /bob.*(quit|left|disconnected)/i.test(t));
  } finally {
    other?.close();
    await w?.close();
    await s.close();
    await irc.close();
  }
});
