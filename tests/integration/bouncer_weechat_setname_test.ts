/**
 * weechat's /setname through the listener: weechat (from Debian, in tmux) asks Parley for
 * `setname`, sends SETNAME, Parley passes it to the server (a scripted one: ngircd has no
 * SETNAME), and the server's SETNAME comes back to weechat, which says so.
 */
import { assert } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncerOn } from "../support/bouncer.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";
import { poll } from "../support/poll.ts";
import { ensureTools, TMUX, WEECHAT } from "../../scripts/system_deps.ts";

Deno.test("bouncer: weechat's /setname reaches the server, and its answer weechat", async () => {
  const [weechat, tmux] = await ensureTools([WEECHAT, TMUX]);
  const irc = startHostileIrc({ caps: ["setname", "message-tags"] });
  const s = await setupBouncerOn(irc.url);
  const server = irc.clients[0];
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
        '/set irc.server.parley.capabilities "*"',
        "/connect parley",
      ]
    ) await type(line);
    const hub = s.bouncer.relay.hub(1, s.cid);
    await poll("weechat attached", () => hub.clients.size === 1, 30_000).catch(async (err) => {
      throw new Error(`${err.message}\n${await pane()}`);
    });
    await type("/buffer parley");
    await type("/setname Alice Liddell");
    await server.waitFor((l) => l === "SETNAME :Alice Liddell", 30_000);
    await server.send(":alice!alice@host SETNAME :Alice Liddell");
    await poll("weechat shows the new real name", async () => {
      const text = await pane();
      return /real name/i.test(text) && text.includes("Alice Liddell");
    }, 30_000).catch(async (err) => {
      throw new Error(`${err.message}\n${await pane()}`);
    });
  } finally {
    await tmuxRun("kill-server");
    await s.close();
    await irc.close();
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
});
