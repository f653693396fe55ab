/** `parley daemon`: runs the server until SIGINT or SIGTERM. */
import { type Config, ConfigError, loadConfig } from "../config.ts";
import type { AppDeps } from "../http/env.ts";
import type { Bouncer } from "../bouncer/mod.ts";
import { createApp } from "../app.ts";
import { serveMetrics } from "../routes/metrics.ts";
import { wireDeps } from "../deps.ts";
import { openStore } from "../store/mod.ts";
import { ensureBot, loadBotConfig } from "../irc/bot/bot.ts";
import { configureLog, log } from "../lib/log.ts";
import { idleGc } from "../lib/idle_gc.ts";
import { errorBody } from "../http/errors.ts";
import { lockHome } from "./home.ts";
import { VERSION } from "./help.ts";

type Handler = (
  req: Request,
  info: Deno.ServeHandlerInfo<Deno.NetAddr>,
) => Response | Promise<Response>;

/** Time after start by which connections are usually made and channels joined. */
const STARTUP_QUIET_MS = 3000;

/** Listens, or turns the usual reasons it cannot into a one-line configuration error. */
function listen(
  options: Deno.ServeTcpOptions & Partial<Deno.TlsCertifiedKeyPem>,
  handler: Handler,
): Deno.HttpServer<Deno.NetAddr> {
  const where = `${options.hostname}:${options.port}`;
  try {
    return Deno.serve(options, handler);
  } catch (err) {
    if (err instanceof Deno.errors.AddrInUse) {
      throw new ConfigError(`PARLEY_LISTEN: ${where} is already in use by another program`);
    }
    if (err instanceof Deno.errors.PermissionDenied) {
      throw new ConfigError(`PARLEY_LISTEN: no permission to listen on ${where}`);
    }
    if (err instanceof Deno.errors.AddrNotAvailable) {
      throw new ConfigError(`PARLEY_LISTEN: ${options.hostname} is not an address of this machine`);
    }
    throw err;
  }
}

/** The bouncer listener when PARLEY_IRC_LISTEN asks for it; a bound port is a config error. */
async function startIrcListener(config: Config, deps: AppDeps): Promise<Bouncer | undefined> {
  if (!config.ircListen.length) return undefined;
  const tls = config.ircTlsCert && config.ircTlsKey
    ? {
      cert: await Deno.readTextFile(config.ircTlsCert),
      key: await Deno.readTextFile(config.ircTlsKey),
    }
    : undefined;
  const { startBouncer } = await import("../bouncer/mod.ts");
  try {
    return startBouncer(deps, { addresses: config.ircListen, tls, version: VERSION });
  } catch (err) {
    if (err instanceof Deno.errors.AddrInUse || err instanceof Deno.errors.AddrNotAvailable) {
      throw new ConfigError(`PARLEY_IRC_LISTEN: ${(err as Error).message}`);
    }
    throw err;
  }
}

/** Runs the server until SIGINT or SIGTERM. */
export async function daemon(args: string[]): Promise<void> {
  const started = performance.now();
  const config = await loadConfig(args);
  configureLog(config, Deno.env.get("JOURNAL_STREAM"));
  // Before the port: a second daemon on this folder says so, not "port in use".
  const lock = await lockHome(config.home, "starting another");

  // Listen at once and answer 503 until the app is ready, so a client never sees a refused socket.
  // The process answers from here on (`/healthz`); it is ready once the app takes over.
  let handler: Handler = (req) =>
    new URL(req.url).pathname === "/healthz"
      ? Response.json({ status: "ok" }, { headers: { "Cache-Control": "no-store" } })
      : Response.json(errorBody([{ message: "Parley is starting.", path: "/" }]), { status: 503 });
  const controller = new AbortController();
  const tls = config.tlsCert && config.tlsKey
    ? { cert: await Deno.readTextFile(config.tlsCert), key: await Deno.readTextFile(config.tlsKey) }
    : {};
  const server = listen({
    hostname: config.listen.hostname.replace(/^\[|\]$/g, ""),
    port: Number(config.listen.port),
    signal: controller.signal,
    onListen: ({ hostname, port }) =>
      log.info("listening", { url: `${config.listen.protocol}//${hostname}:${port}` }),
    ...tls,
  }, (req, info) => handler(req, info));

  // A bad bot.json stops the start here, before anything else is opened.
  const botConfig = await loadBotConfig(config.home);
  const store = await openStore(config.home, config.databaseUrl);
  const deps = await wireDeps(config, store, VERSION);
  const { irc, bus } = deps;
  const app = createApp(deps);
  handler = (req, info) => app.fetch(req, { remoteAddr: info.remoteAddr });
  const metrics = config.metricsListen && serveMetrics(config.metricsListen, deps);
  // Starting grows the heap (modules compiled, the store opened, connections made): give it back
  // once things are quiet, as after a burst.
  idleGc.burstFor(STARTUP_QUIET_MS);
  log.info("ready", { ms: (performance.now() - started).toFixed(0), home: config.home });
  // Where to go: the URL people use, and on a fresh install who becomes the admin. The bot
  // (bot.json) is not a person, as in registration.
  const people = (await store.users.count()) - (await store.users.withRole("bot")).length;
  log.info("open Parley", { url: config.baseUrl.href });
  if (people === 0) {
    log.info("fresh install: the first account registered becomes the admin", {
      url: new URL("register", config.baseUrl.href.replace(/\/?$/, "/")).href,
    });
  }
  // Before the connections start, so the bouncer's relay sees each server's greeting.
  const bouncer = await startIrcListener(config, deps);
  deps.bouncer = bouncer;
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
    await bouncer?.close();
    await metrics?.shutdown();
    await irc.stop();
    await store.close();
    lock.close();
    log.info("stopped");
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", () => void stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => void stop("SIGTERM"));
  await server.finished;
}
