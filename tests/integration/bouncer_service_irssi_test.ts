/**
 * BouncerServ through a real terminal client: irssi (from Debian) in tmux, attached with SASL
 * PLAIN, types `/msg BouncerServ ...` and shows the answers; a stranger holding the nick
 * BouncerServ on the IRC network hears nothing.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, setupBouncer } from "../support/bouncer.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { poll } from "../support/poll.ts";
import { irssiConfig } from "../support/irssi.ts";
import { ensureTools, IRSSI, TMUX } from "../../scripts/system_deps.ts";

Deno.test("bouncer: irssi in tmux talks to BouncerServ", async () => {
  const [irssi, tmux] = await ensureTools([IRSSI, TMUX]);
  const s = await setupBouncer();
  const home = await Deno.makeTempDir({ prefix: "parley-irssi-serv-" });
  const socket = `parley-test-${crypto.randomUUID().slice(0, 8)}`;
  const tmuxRun = (...args: string[]) =>
    new Deno.Command(tmux, { args: ["-L", socket, ...args], stdout: "piped", stderr: "piped" })
      .output();
  const pane = async () =>
    new TextDecoder().decode((await tmuxRun("capture-pane", "-p", "-t", "irssi")).stdout);
  const stranger = await RawIrcClient.connect(s.ngircd.port, "BouncerServ");
  try {
    await Deno.writeTextFile(`${home}/config`, irssiConfig(s.port, `${EMAIL}/${s.cid}@irssi`));
    const started = await tmuxRun(
      "new-session",
      "-d",
      "-s",
      "irssi",
      "-x",
      "200",
      "-y",
      "40",
      `${irssi} --home=${home} -n irssi`,
    );
    assert(started.success, new TextDecoder().decode(started.stderr));
    const hub = s.bouncer.relay.hub(1, s.cid);
    await poll("irssi attached", () => hub.clients.size === 1, 30_000);
    await tmuxRun("send-keys", "-t", "irssi", "/msg BouncerServ network status", "Enter");
    // irssi opens a query window for BouncerServ; its answers go there.
    await poll("irssi shows BouncerServ's answer", async () => {
      await tmuxRun("send-keys", "-t", "irssi", "/window goto BouncerServ", "Enter");
      return (await pane()).includes(`${s.cid} (localhost): connected as alice`);
    }, 30_000);
    await tmuxRun("send-keys", "-t", "irssi", "/msg bouncerserv certfp frob", "Enter");
    await poll("irssi shows the error and what to type", async () => {
      return (await pane()).includes('Unknown command "certfp frob"');
    }, 30_000);
    // A line to the stranger through the same connection, after both: once it is there, the
    // lines to BouncerServ would be too.
    await tmuxRun(
      "send-keys",
      "-t",
      "irssi",
      "/quote PRIVMSG BouncerServ :network status",
      "Enter",
    );
    const marker = await RawIrcClient.connect(s.ngircd.port, "BouncerServ_");
    try {
      await tmuxRun("send-keys", "-t", "irssi", "/msg BouncerServ_ marker", "Enter");
      await marker.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "marker", 30_000);
    } finally {
      await marker.close();
    }
    const heard = stranger.lines.filter((l) => l.command === "PRIVMSG" && l.nick === "alice");
    assertEquals(heard.map((l) => l.params[1]), []);
  } finally {
    await tmuxRun("kill-server");
    await stranger.close();
    await s.close();
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
});
