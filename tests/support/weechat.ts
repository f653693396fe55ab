/**
 * weechat (from Debian) in tmux, as the terminal tests drive it: started with a home of its own,
 * set up by typing the commands docs/bouncer.md gives (no TLS on loopback), connected to the
 * bouncer listener with SASL PLAIN.
 */
import { assert } from "./assert.ts";
import { poll } from "./poll.ts";
import { ensureTools, TMUX, WEECHAT } from "../../scripts/system_deps.ts";

export interface Weechat {
  /** What its screen shows now. */
  pane(): Promise<string>;
  /** Types a line, then Enter. */
  type(line: string): Promise<void>;
  /** Waits until the screen passes `test`; a wait that ends without it fails with the screen. */
  shows(what: string, test: (screen: string) => boolean, ms?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts weechat and connects it to the listener on `port` as `username`. */
export async function startWeechat(
  port: number,
  username: string,
  password: string,
  /** `irc.server.parley.capabilities`, when it is to ask for more than its default. */
  capabilities?: string,
): Promise<Weechat> {
  const [weechat, tmux] = await ensureTools([WEECHAT, TMUX]);
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
  const shows = async (what: string, test: (screen: string) => boolean, ms = 30_000) => {
    await poll(what, async () => test(await pane()), ms).catch(async (err) => {
      throw new Error(`${err.message}\n${await pane()}`);
    });
  };
  const close = async () => {
    await tmuxRun("kill-server");
    await Deno.remove(home, { recursive: true }).catch(() => {});
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
      // Keys typed by tmux come faster than a person's: not a paste to confirm.
      `${weechat} --dir ${home} -r '/set weechat.look.paste_max_lines -1'`,
    );
    assert(started.success, new TextDecoder().decode(started.stderr));
    await shows("weechat is up", (screen) => screen.includes("WeeChat"));
    for (
      const line of [
        `/server add parley 127.0.0.1/${port}`,
        "/set irc.server.parley.sasl_mechanism plain",
        `/set irc.server.parley.sasl_username "${username}"`,
        `/set irc.server.parley.sasl_password "${password}"`,
        ...capabilities ? [`/set irc.server.parley.capabilities "${capabilities}"`] : [],
        "/connect parley",
      ]
    ) await type(line);
  } catch (err) {
    await close();
    throw err;
  }
  return { pane, type, shows, close };
}
