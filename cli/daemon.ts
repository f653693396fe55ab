/**
 * `parley daemon`: runs the server until SIGINT or SIGTERM; SIGHUP reloads the TLS certificates.
 * Everything the configuration can get wrong (the data folder, the database, the ports) fails
 * before "ready" is logged, in one line naming the variable, with exit code 2.
 */
import { type Identd, serveIdent } from "../irc/identd.ts";
import {
  type Config,
  ConfigError,
  configWarnings,
  flagsToEnv,
  homeError,
  listenPort,
  loadConfig,
  readSettingFile,
} from "../config.ts";
import type { AppDeps } from "../http/env.ts";
import type { Bouncer } from "../bouncer/mod.ts";
import { createApp, createStartingApp } from "../app.ts";
import { serveMetrics } from "../routes/metrics.ts";
import { wireDeps } from "../deps.ts";
import { ensureBot, loadBotConfig } from "../irc/bot/bot.ts";
import { configureLog, log } from "../lib/log.ts";
import { idleGc } from "../lib/idle_gc.ts";
import { catchStrayErrors } from "../lib/stray_errors.ts";
import { secretWeakness } from "../lib/secret_strength.ts";
import { databaseError, lockHome } from "./home.ts";
import { openCheckedStore } from "./start_checks.ts";
import { VERSION } from "./help.ts";
import {
  checkedPair,
  type Handler,
  listenError,
  listenWeb,
  type WebListener,
} from "./web_listener.ts";
import { ReloadableTls, type TlsPem } from "../bouncer/tls_reload.ts";
import { startRetention } from "../store/retention.ts";
import { underBaseUrl } from "../lib/base_url.ts";

/** Time after start by which connections are usually made and channels joined. */
const STARTUP_QUIET_MS = 3000;

/** The certificate and key of `https://` (web) or `ircs://` (irc), read from their files. */
async function readTls(config: Config, which: "web" | "irc"): Promise<TlsPem | undefined> {
  const [cert, key, prefix] = which === "web"
    ? [config.tlsCert, config.tlsKey, "PARLEY_TLS"]
    : [config.ircTlsCert, config.ircTlsKey, "PARLEY_IRC_TLS"];
  if (!cert || !key) return undefined;
  return {
    cert: await readSettingFile(cert, `${prefix}_CERT`),
    key: await readSettingFile(key, `${prefix}_KEY`),
  };
}

/**
 * A store that cannot be opened for a reason the configuration can fix (no database server at
 * that address, a refused login, no such database, a data folder this user cannot write), said in
 * one line naming the variable. The URL's password is never repeated.
 */
function storeError(config: Config, err: unknown): unknown {
  if (err instanceof ConfigError || !(err instanceof Error)) return err;
  if (!config.databaseUrl) {
    return err instanceof Deno.errors.PermissionDenied ? homeError(config.home, err) : err;
  }
  return databaseError("PARLEY_DATABASE_URL", config.databaseUrl, err);
}

/** The bouncer listener when PARLEY_IRC_LISTEN asks for it; a bound port is a config error. */
async function startIrcListener(
  config: Config,
  deps: AppDeps,
  tls: ReloadableTls | undefined,
): Promise<Bouncer | undefined> {
  if (!config.ircListen.length) return undefined;
  const { startBouncer } = await import("../bouncer/mod.ts");
  if (tls) checkedPair(tls, "PARLEY_IRC_TLS_CERT and PARLEY_IRC_TLS_KEY");
  try {
    return startBouncer(deps, { addresses: config.ircListen, tls, version: VERSION });
  } catch (err) {
    const where = config.ircListen.map((a) => `${a.hostname}:${a.port}`).join(", ");
    throw listenError("PARLEY_IRC_LISTEN", where, config.ircListen.some((a) => a.port < 1024), err);
  }
}

/** The ident server when PARLEY_IDENTD_LISTEN asks for it; a port it may not take stops the start. */
function startIdentd(config: Config, deps: AppDeps): Identd | undefined {
  const at = config.identdListen;
  if (!at || !deps.ident) return undefined;
  try {
    return serveIdent(deps.ident, at.hostname, at.port);
  } catch (err) {
    throw listenError("PARLEY_IDENTD_LISTEN", `${at.hostname}:${at.port}`, at.port < 1024, err);
  }
}

/**
 * SIGHUP: what can change without a restart is taken again, as soju does: the TLS certificates
 * and keys (certbot renews them). A file that cannot be read, or a pair that does not fit, is
 * logged and the old one kept.
 */
async function reload(config: Config, web: WebListener, irc?: ReloadableTls): Promise<void> {
  const listeners: [string, "web" | "irc", ((pem: TlsPem) => Promise<void>) | undefined][] = [
    ["https", "web", config.listen.protocol === "https:" ? (pem) => web.reloadTls(pem) : undefined],
    ["ircs", "irc", irc && ((pem) => irc.replace(pem))],
  ];
  const taking = listeners.filter(([, , take]) => take);
  log.info("reloading", { signal: "SIGHUP", tls: taking.map(([l]) => l).join(",") || "none" });
  for (const [listener, which, take] of taking) {
    try {
      // Both files are set whenever the listener speaks TLS (the configuration requires it).
      await take!((await readTls(config, which))!);
      log.info("reloaded TLS certificate", { listener });
    } catch (err) {
      log.error("TLS certificate not reloaded", {
        listener,
        error: (err as Error).message,
      });
    }
  }
}

/**
 * The longest a stop may take. Its own waits are bounded: the IRC connections' last lines (5 s
 * at most), the database's return for the messages held for it (3 s), its connections' end (2 s);
 * what is left is a database host that hangs mid-query. Below the shipped unit's TimeoutStopSec
 * (20 s), so the log says where it waited before systemd kills it.
 */
const STOP_S = 15;

/** Runs the server until SIGINT or SIGTERM. */
export async function daemon(args: string[]): Promise<void> {
  const started = performance.now();
  catchStrayErrors();
  const config = await loadConfig(args);
  configureLog(config, Deno.env.get("JOURNAL_STREAM"));
  // Flags count as the variables they stand for.
  const given = { ...Deno.env.toObject(), ...flagsToEnv(args) };
  for (const warning of configWarnings(config, given)) log.warn(warning);
  const weak = secretWeakness(config.secret);
  if (weak) {
    log.warn("the server secret (PARLEY_SECRET) is weak; use `openssl rand -base64 32`", {
      reason: weak,
    });
  }
  // Before the port: a second daemon on this folder says so, not "port in use".
  const lock = await lockHome(config.home, "starting another");

  // Listen at once and answer 503 until the app is ready, so a client never sees a refused socket.
  // The process answers from here on (`/healthz`); it is ready once the app takes over.
  const starting = createStartingApp(config);
  let handler: Handler = (req, info) => starting.fetch(req, { remoteAddr: info.remoteAddr });
  const web = listenWeb({
    hostname: config.listen.hostname,
    port: listenPort(config.listen),
    protocol: config.listen.protocol,
    tls: await readTls(config, "web"),
  }, (req, info) => handler(req, info));
  // From here SIGHUP reloads rather than ending the process (its default).
  const ircPem = config.ircListen.some((a) => a.tls) ? await readTls(config, "irc") : undefined;
  const ircTls = ircPem && new ReloadableTls(ircPem);
  Deno.addSignalListener("SIGHUP", () => void reload(config, web, ircTls));

  // A bad bot.json stops the start here, before anything else is opened.
  const botConfig = await loadBotConfig(config.home);
  const store = await openCheckedStore(config).catch((err) => {
    throw storeError(config, err);
  });
  // What an earlier stop could not store (the database away), beside the new lines; until it is
  // committed its file stays for the next start.
  store.messages.storeHeld?.(config.home).catch((err) =>
    log.warn("held messages not stored yet", { error: String(err) })
  );
  const deps = await wireDeps(config, store, VERSION);
  const { irc, bus } = deps;
  const app = createApp(deps);
  handler = (req, info) => app.fetch(req, { remoteAddr: info.remoteAddr });
  // Before the connections start, so the bouncer's relay sees each server's greeting; and before
  // "ready", so a port in use stops the start.
  const bouncer = await startIrcListener(config, deps, ircTls);
  deps.bouncer = bouncer;
  const metrics = config.metricsListen && serveMetrics(config.metricsListen, deps);
  const identd = startIdentd(config, deps);
  // Starting grows the heap (modules compiled, the store opened, connections made): give it back
  // once things are quiet, as after a burst.
  idleGc.burstFor(STARTUP_QUIET_MS);
  log.info("ready", { ms: Math.round(performance.now() - started), home: config.home });
  // Where to go: the URL people use, and on a fresh install who becomes the admin. The bot
  // (bot.json) is not a person, as in registration.
  const people = (await store.users.count()) - (await store.users.withRole("bot")).length;
  log.info("open Parley", { url: config.baseUrl.href });
  if (people === 0) {
    log.info("fresh install: the first account registered becomes the admin", {
      url: underBaseUrl(config.baseUrl, "register").href,
    });
  }
  irc.start().catch((err) => log.error("irc start failed", { error: err }));
  if (botConfig) {
    ensureBot(deps, botConfig).catch((err) => log.error("bot start failed", { error: err }));
  }

  const purge = setInterval(
    () =>
      store.sessions.purge(Date.now()).catch((err) =>
        log.warn("purging expired sessions failed; tried again in an hour", { error: String(err) })
      ),
    3600_000,
  );
  const retention = startRetention(store, config);
  let stopping = false;
  /** Ends the process now; what the writer holds for a database that never answered is kept. */
  const endNow = (): never => {
    try {
      const held = store.messages.abandon?.();
      if (held && (held.kept || held.lost)) log.warn("messages held for the database", held);
    } catch (err) {
      log.error("messages held for the database not kept", { error: String(err) });
    }
    Deno.exit(1);
  };
  const stop = async (signal: string) => {
    if (stopping) {
      // A second signal: whoever sent it will not wait for the rest.
      log.warn("stopping at once", { signal });
      endNow();
    }
    stopping = true;
    log.info("stopping", { signal });
    clearInterval(purge);
    bus.broadcast({ event: "shutdown" });
    // In order: no new requests or IRC clients, the IRC connections' last lines stored, then the
    // store closed. Each step bounds its own waits; a database host that stops answering
    // mid-query can still hold one (its connect timeout), so the whole is bounded too.
    const steps: [string, () => Promise<unknown> | undefined][] = [
      ["the web listener", () => web.stop()],
      ["the IRC listener", () => bouncer?.close()],
      ["the metrics listener", () => metrics?.shutdown()],
      ["the ident server", () => identd?.close()],
      ["the IRC connections", () => irc.stop()],
      ["retention", () => retention.stop()],
      ["the store", () => store.close()],
    ];
    let step = "";
    setTimeout(() => {
      log.error("stopping took too long; ending now", { waiting_for: step, after_s: STOP_S });
      endNow();
    }, STOP_S * 1000);
    for (const [name, fn] of steps) {
      step = name;
      await fn();
    }
    lock.close();
    log.info("stopped");
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", () => void stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => void stop("SIGTERM"));
  await web.finished;
}
