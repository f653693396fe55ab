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
import { ensureTools, TMUX, WEECHAT } from "../../scripts/system_deps.ts";

Deno.test("bouncer: weechat in tmux, set up as the docs say, attaches with SASL", async () => {
  const [weechat, tmux] = await ensureTools([WEECHAT, TMUX]);
  const s = await setupBouncer();
  const home = await Deno.makeTempDir({ prefix: "parley-weechat-" });
  const socket = `parley-test-${crypto.randomUUID().slice(0, 8)}`;
  const tmuxRun = (...args: string[]) =>
    new Deno.Command(tmux, { args: ["-L", socket, ...args], stdout: "piped", stderr: "piped" })
      .output();
  const pane = async () =>
    new TextDecoder().decode((await tmuxRun("capture-pane", "-p", "-t", "weechat")).stdout);
  const type = (line: string) => tmuxRun("send-keys", "-t", "weechat", "-l", line);
  const enter = () => tmuxRun("send-keys", "-t", "weechat", "Enter");
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  // What every /events socket of the web client is fed.
  const events: { event: string; message?: string; conversation_id?: string; msgid?: string }[] =
    [];
  const unsubscribe = s.app.deps.bus.subscribe(1, (ev) => void events.push(ev as never));
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
    const started = await tmuxRun(
      "new-session",
      "-d",
      "-s",
      "weechat",
      "-x",
      "160",
      "-y",
      "40",
      // Keys typed by tmux come faster than a person's: not a paste to confirm.
      `${weechat} --dir ${home} -r '/set weechat.look.paste_max_lines -1'`,
    );
    assert(started.success, new TextDecoder().decode(started.stderr));
    await poll("weechat is up", async () => (await pane()).includes("WeeChat"), 30_000);
    // docs/bouncer.md's weechat section, typed as a user would (no TLS on loopback).
    for (
      const line of [
        `/server add parley 127.0.0.1/${s.port}`,
        "/set irc.server.parley.sasl_mechanism plain",
        `/set irc.server.parley.sasl_username "${EMAIL}/${s.cid}@weechat"`,
        `/set irc.server.parley.sasl_password "${PASSWORD}"`,
        '/set irc.server.parley.capabilities "*"',
        "/connect parley",
      ]
    ) {
      await type(line);
      await enter();
    }
    const hub = s.bouncer.relay.hub(1, s.cid);
    await poll("weechat attached", () => hub.clients.size === 1, 30_000).catch(async (err) => {
      throw new Error(`${err.message}\n${await pane()}`);
    });
    await poll("weechat shows #weechat", async () => {
      await type("/buffer #weechat");
      await enter();
      return (await pane()).includes("#weechat");
    }, 30_000);
    // Debian's weechat (3.8) takes no chat history: the recent lines are replayed on attach.
    await poll("weechat shows the line said before it came", async () => {
      return (await pane()).includes("said before weechat came");
    }, 30_000).catch(async (err) => {
      throw new Error(`${err.message}\n${await pane()}`);
    });
    await type("/msg #weechat typed in weechat");
    await enter();
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
    await tmuxRun("kill-server");
    unsubscribe();
    await bob.close();
    await s.close();
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
});
