/**
 * A real terminal client: irssi (from Debian) runs in tmux, attaches to the user's connection
 * through the bouncer listener with SASL PLAIN, shows the channel's recent history, a line typed
 * in it reaches IRC and the API, and its /notify (ISON through Parley) sees someone come.
 */
import { assert } from "../support/assert.ts";
import { EMAIL, setupBouncer } from "../support/bouncer.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { poll } from "../support/poll.ts";
import { irssiConfig } from "../support/irssi.ts";
import { ensureTools, IRSSI, TMUX } from "../../scripts/system_deps.ts";

Deno.test("bouncer: irssi in tmux attaches with SASL; a line typed there reaches the API", async () => {
  const [irssi, tmux] = await ensureTools([IRSSI, TMUX]);
  const s = await setupBouncer();
  const home = await Deno.makeTempDir({ prefix: "parley-irssi-" });
  const socket = `parley-test-${crypto.randomUUID().slice(0, 8)}`;
  const tmuxRun = (...args: string[]) =>
    new Deno.Command(tmux, { args: ["-L", socket, ...args], stdout: "piped", stderr: "piped" })
      .output();
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  let carol: RawIrcClient | undefined;
  try {
    await s.app.deps.irc.send(1, s.cid, "", "/join #term");
    await bob.join("#term");
    await bob.waitForMember("#term", "alice");
    await bob.say("#term", "said before irssi came");
    await poll("the line is stored", async () => {
      const r = await s.api.get(`/api/connection/${s.cid}/conversation/%23term/messages`);
      return r.body.messages?.some((m: { message: string }) =>
        m.message === "said before irssi came"
      );
    });
    await Deno.writeTextFile(`${home}/config`, irssiConfig(s.port, `${EMAIL}/${s.cid}@irssi`));
    const started = await tmuxRun(
      "new-session",
      "-d",
      "-s",
      "irssi",
      "-x",
      "160",
      "-y",
      "40",
      `${irssi} --home=${home} -n irssi`,
    );
    assert(started.success, new TextDecoder().decode(started.stderr));
    const hub = s.bouncer.relay.hub(1, s.cid);
    await poll("irssi attached", () => hub.clients.size === 1, 30_000);
    // Attached: irssi has the burst, with #term in it; it types in that window.
    await poll("irssi shows #term", async () => {
      await tmuxRun("send-keys", "-t", "irssi", "/window goto #term", "Enter");
      const pane = await tmuxRun("capture-pane", "-p", "-t", "irssi");
      return new TextDecoder().decode(pane.stdout).includes("#term");
    }, 30_000);
    // irssi takes no chat history: the channel's recent lines are replayed to it on attach.
    await poll("irssi shows the line said before it came", async () => {
      const pane = await tmuxRun("capture-pane", "-p", "-t", "irssi");
      return new TextDecoder().decode(pane.stdout).includes("said before irssi came");
    }, 30_000);
    await tmuxRun("send-keys", "-t", "irssi", "/msg #term typed in irssi", "Enter");
    await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "typed in irssi", 30_000);
    await poll("the API has the line", async () => {
      const r = await s.api.get(`/api/connection/${s.cid}/conversation/%23term/messages`);
      return r.body.messages?.some((m: { message: string; from: string }) =>
        m.message === "typed in irssi" && m.from === "alice"
      );
    });
    // /notify: irssi asks the server ISON (ngircd has no MONITOR) through Parley, and says so
    // when the person comes.
    await tmuxRun("send-keys", "-t", "irssi", "/set notify_check_time 2s", "Enter");
    await tmuxRun("send-keys", "-t", "irssi", "/notify carol", "Enter");
    await tmuxRun("send-keys", "-t", "irssi", "/window goto 1", "Enter");
    carol = await RawIrcClient.connect(s.ngircd.port, "carol");
    await poll("irssi says carol came", async () => {
      const pane = await tmuxRun("capture-pane", "-p", "-t", "irssi");
      return /carol.*has joined/.test(new TextDecoder().decode(pane.stdout));
    }, 30_000);
  } finally {
    await tmuxRun("kill-server");
    await bob.close();
    await carol?.close();
    await s.close();
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
});
