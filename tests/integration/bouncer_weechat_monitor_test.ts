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
import { ensureTools, TMUX, WEECHAT } from "../../scripts/system_deps.ts";

Deno.test("bouncer: weechat's /notify keeps working while another client clears its MONITOR list", async () => {
  const [weechat, tmux] = await ensureTools([WEECHAT, TMUX]);
  const irc = startHostileIrc({ monitor: { limit: 100 } });
  const s = await setupBouncerOn(irc.url);
  const server = await irc.registered();
  const home = await Deno.makeTempDir({ prefix: "parley-weechat-" });
  const socket = `parley-test-${crypto.randomUUID().slice(0, 8)}`;
  const tmuxRun = (...args: string[]) =>
    new Deno.Command(tmux, { args: ["-L", socket, ...args], stdout: "piped", stderr: "piped" })
      .output();
  const pane = async () =>
    new TextDecoder().decode((await tmuxRun("capture-pane", "-p", "-t", "weechat")).stdout);
  const type = async (line: string) => {
    await tmuxRun("send-keys", "-t", "weechat", "-l", line);
    await tmuxRun("send-keys", "-t", "weechat", "Enter");
  };
  const shows = (what: string, test: (text: string) => boolean) =>
    poll(what, async () => test(await pane()), 30_000).catch(async (err) => {
      throw new Error(`${err.message}\n${await pane()}`);
    });
  let other: BouncerClient | undefined;
  try {
    const started = await tmuxRun(
      "new-session",
      "-d",
      "-s",
      "weechat",
      "-x",
      "160",
      "-y",
      "40",
      `${weechat} --dir ${home} -r '/set weechat.look.paste_max_lines -1'`,
    );
    assert(started.success, new TextDecoder().decode(started.stderr));
    await poll("weechat is up", async () => (await pane()).includes("WeeChat"), 30_000);
    for (
      const line of [
        `/server add parley 127.0.0.1/${s.port}`,
        "/set irc.server.parley.sasl_mechanism plain",
        `/set irc.server.parley.sasl_username "${EMAIL}/${s.cid}@weechat"`,
        `/set irc.server.parley.sasl_password "${PASSWORD}"`,
        "/connect parley",
      ]
    ) await type(line);
    const hub = s.bouncer.relay.hub(1, s.cid);
    await poll("weechat attached", () => hub.clients.size === 1, 30_000).catch(async (err) => {
      throw new Error(`${err.message}\n${await pane()}`);
    });
    await type("/buffer parley");
    await type("/notify add bob parley");
    await poll("bob watched", () => irc.watching(server).includes("bob"), 30_000);

    other = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@other`, PASSWORD, [], "other");
    await other.send("MONITOR + carol");
    await poll("carol watched", () => irc.watching(server).includes("carol"));
    await other.send("MONITOR C");
    await poll("carol forgotten", () => !irc.watching(server).includes("carol"));
    assert(irc.watching(server).includes("bob"), "weechat's nick is still watched");

    await irc.presence("bob", "bob!robert@bob.host");
    await shows(
      "weechat says bob came",
      (t) => /bob.*robert@bob\.host.*(connected|joined)/i.test(t),
    );
    await irc.presence("bob", undefined);
    await shows("weechat says bob left", (t) => /bob.*(quit|left|disconnected)/i.test(t));
  } finally {
    other?.close();
    await tmuxRun("kill-server");
    await s.close();
    await irc.close();
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
});
