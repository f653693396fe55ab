/**
 * weechat's /setname through the listener: weechat (from Debian, in tmux) asks Parley for
 * `setname`, sends SETNAME, Parley passes it to the server (a scripted one: ngircd has no
 * SETNAME), and the server's SETNAME comes back to weechat, which says so.
 */
import { EMAIL, PASSWORD, setupBouncerOn } from "../support/bouncer.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";
import { poll } from "../support/poll.ts";
import { startWeechat, type Weechat } from "../support/weechat.ts";

Deno.test("bouncer: weechat's /setname reaches the server, and its answer weechat", async () => {
  const irc = startHostileIrc({ caps: ["setname", "message-tags"] });
  const s = await setupBouncerOn(irc.url);
  const server = irc.clients[0];
  let w: Weechat | undefined;
  try {
    w = await startWeechat(s.port, `${EMAIL}/${s.cid}@weechat`, PASSWORD, "*");
    const screen = w;
    const hub = s.bouncer.relay.hub(1, s.cid);
    await poll("weechat attached", () => hub.clients.size === 1, 30_000).catch(async (err) => {
      throw new Error(`${err.message}\n${await screen.pane()}`);
    });
    await w.type("/buffer parley");
    await w.type("/setname Alice Liddell");
    await server.waitFor((l) => l === "SETNAME :Alice Liddell", 30_000);
    await server.send(":alice!alice@host SETNAME :Alice Liddell");
    await w.shows(
      "weechat shows the new real name",
      (text) => /real name/i.test(text) && text.includes("Alice Liddell"),
    );
  } finally {
    await w?.close();
    await s.close();
    await irc.close();
  }
});
