/** The `parley` command: `daemon` (default), `user ...`, `version`; wiring and shutdown. */
import { ConfigError, loadConfig, OPTIONS } from "./config.ts";
import { createApp } from "./app.ts";
import { openStore, type Store } from "./store/mod.ts";
import { EventBus } from "./lib/bus.ts";
import { IrcManager } from "./irc/manager.ts";
import { filesUserDeleted } from "./routes/files.ts";
import { ensureBot, loadBotConfig } from "./irc/bot.ts";
import { log, setLogLevel } from "./lib/log.ts";
import { hashPassword } from "./lib/password.ts";
import { errorBody } from "./http/errors.ts";
import type { AppDeps } from "./http/env.ts";
import denoJson from "./deno.json" with { type: "json" };

/** Parley's version. */
export const VERSION = denoJson.version;

const USAGE = `parley ${VERSION}: a multiuser, persistent IRC proxy

Usage:
  parley [daemon] [--flag value ...]   run the server
  parley user list                     list users
  parley user set-password EMAIL       read a new password from stdin
  parley user set-role EMAIL ROLE...   replace a user's roles (admin, bot)
  parley version                       print the version

Daemon flags (each also an environment variable):
${OPTIONS.map((o) => `  --${o.flag.padEnd(22)}${o.env}: ${o.help}`).join("\n")}
`;

/** Runs the server until SIGINT or SIGTERM. */
async function daemon(args: string[]): Promise<void> {
  const started = performance.now();
  const config = await loadConfig(args);
  setLogLevel(config.logLevel);

  // Listen at once and answer 503 until the app is ready, so a client never sees a refused socket.
  let handler: (
    req: Request,
    info: Deno.ServeHandlerInfo<Deno.NetAddr>,
  ) => Response | Promise<Response> = () =>
    Response.json(errorBody([{ message: "Parley is starting.", path: "/" }]), { status: 503 });
  const controller = new AbortController();
  const tls = config.tlsCert && config.tlsKey
    ? { cert: await Deno.readTextFile(config.tlsCert), key: await Deno.readTextFile(config.tlsKey) }
    : {};
  const server = Deno.serve({
    hostname: config.listen.hostname.replace(/^\[|\]$/g, ""),
    port: Number(config.listen.port),
    signal: controller.signal,
    onListen: ({ hostname, port }) =>
      log.info("listening", { url: `${config.listen.protocol}//${hostname}:${port}` }),
    ...tls,
  }, (req, info) => handler(req, info));

  // A bad bot.json stops the start here, before anything else is opened.
  const botConfig = await loadBotConfig(config.home);
  const store = await openStore(config.home);
  const bus = new EventBus();
  const irc = new IrcManager({ config, store, bus, version: VERSION });
  const deps: AppDeps = { config, store, bus, irc, userDeleted: [(uid) => irc.userDeleted(uid)] };
  // outside world
  deps.userDeleted!.push(filesUserDeleted(deps));
  const app = createApp(deps);
  handler = (req, info) => app.fetch(req, { remoteAddr: info.remoteAddr });
  log.info("ready", { ms: (performance.now() - started).toFixed(0), home: config.home });
  irc.start().catch((err) => log.error("irc start failed", { error: err }));
  if (botConfig) {
    ensureBot(deps, botConfig).then((bot) => (deps.bot = bot))
      .catch((err) => log.error("bot start failed", { error: err }));
  }

  const purge = setInterval(() => store.sessions.purge(Date.now()).catch(() => {}), 3600_000);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("stopping", { signal });
    clearInterval(purge);
    bus.broadcast({ event: "shutdown" });
    controller.abort();
    await server.finished;
    await irc.stop();
    await store.close();
    log.info("stopped");
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", () => void stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => void stop("SIGTERM"));
  await server.finished;
}

async function readLine(): Promise<string> {
  const buf = new Uint8Array(4096);
  const n = await Deno.stdin.read(buf);
  return new TextDecoder().decode(buf.subarray(0, n ?? 0)).replace(/\r?\n$/, "");
}

/** `parley user ...`: account maintenance from the shell, for a locked-out admin. */
async function userCommand(args: string[]): Promise<void> {
  const config = await loadConfig([]);
  const store: Store = await openStore(config.home);
  try {
    const [sub, email, ...rest] = args;
    if (sub === "list") {
      for (const u of await store.users.list(undefined, 1_000_000)) {
        console.log(`${u.email}\t${u.roles.join(",")}`);
      }
      return;
    }
    const user = email ? await store.users.byEmail(email.toLowerCase()) : undefined;
    if (!user) throw new ConfigError(`no such user: ${email ?? "(none given)"}`);
    if (sub === "set-password") {
      const password = await readLine();
      if (password.length < 10) {
        throw new ConfigError("the password must be at least 10 characters");
      }
      await store.users.update(user.id, { passwordHash: await hashPassword(password) });
      await store.sessions.removeForUser(user.id);
    } else if (sub === "set-role") {
      await store.users.update(user.id, {
        roles: rest.filter((r) => r === "admin" || r === "bot"),
      });
    } else {
      throw new ConfigError(`unknown user command: ${sub}`);
    }
    console.log("ok");
  } finally {
    await store.close();
  }
}

if (import.meta.main) {
  const [command = "daemon", ...rest] = Deno.args;
  try {
    if (command === "daemon") await daemon(rest);
    else if (command.startsWith("--")) await daemon(Deno.args);
    else if (command === "user") await userCommand(rest);
    else if (command === "version") console.log(VERSION);
    else if (command === "help" || command === "-h") console.log(USAGE);
    else throw new ConfigError(`unknown command "${command}"\n\n${USAGE}`);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`parley: ${err.message}`);
      Deno.exit(2);
    }
    throw err;
  }
}
