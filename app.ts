/** Builds the Hono app from its dependencies: middleware, the /api operations, errors. */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import type { AppDeps, AppEnv } from "./http/env.ts";
import { ApiError, errorBody, fromDomain } from "./http/errors.ts";
import { loadSession } from "./http/session.ts";
import { proxyLogin } from "./http/proxy_login.ts";
import { requestOrigin } from "./http/client.ts";
import { foreignRequest } from "./http/origin.ts";
import { refuseForeignHost } from "./http/host.ts";
import { noteRequestBase } from "./http/request_base.ts";
import { log } from "./lib/log.ts";
import { randomId } from "./lib/crypto.ts";
import { API, apiDocument } from "./protocol/contract/mod.ts";
import { honoPath } from "./http/bind.ts";
import { basePath, withinBase } from "./http/base_path.ts";
import { notFoundPage, opensPage } from "./http/not_found_page.ts";
import { userRoutes } from "./routes/user.ts";
import { usersRoutes } from "./routes/users.ts";
import { settingsRoutes } from "./routes/settings.ts";
import { profileRoutes } from "./routes/profiles.ts";
import { messageRoutes } from "./routes/messages.ts";
import { searchRoutes } from "./routes/search.ts";
import { notificationRoutes } from "./routes/notifications.ts";
import { connectionRoutes } from "./routes/connections.ts";
import { conversationRoutes } from "./routes/conversations.ts";
import { conversationPrefsRoutes } from "./routes/conversation_prefs.ts";
import { clientSettingsRoutes } from "./routes/client_settings.ts";
import { eventRoutes } from "./routes/events.ts";
import { ircSocketRoutes } from "./routes/irc_socket.ts";
import { filehostRoutes } from "./routes/filehost.ts";
import { filesRoutes } from "./routes/files.ts";
import { updatesRoutes } from "./routes/updates.ts";
import { embedRoutes } from "./routes/embed.ts";
import { webhookRoutes } from "./routes/webhook.ts";
import { dictionaries, i18nRoutes } from "./routes/i18n.ts";
import { assetRoutes, webRoutes } from "./routes/web.ts";
import type { Config } from "./config.ts";
import { noteSessionClient, sessionRoutes } from "./routes/sessions.ts";
import { appTokenRoutes } from "./routes/app_tokens.ts";
import { certfpRoutes } from "./routes/certfps.ts";
import { pushRoutes } from "./routes/push.ts";
import { ignoreRoutes } from "./routes/ignores.ts";
import { healthRoutes } from "./routes/health.ts";
import { metricsRoutes, requestMetrics } from "./routes/metrics.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Sending takes a message of up to 65,536 characters, each up to 6 bytes once JSON-escaped. */
const SEND_BODY_LIMIT = 6 * 65_536 + 1024;

/**
 * The request path the routes see: the base URL's path taken off when the proxy passed it on
 * (http/base_path.ts), and the `.json` suffix that every operation also answers to removed.
 */
function routedPath(base: string): (req: Request) => string {
  return (req) => {
    const start = req.url.indexOf("/", req.url.indexOf("://") + 3);
    const end = req.url.indexOf("?", start);
    const path = withinBase(end === -1 ? req.url.slice(start) : req.url.slice(start, end), base);
    return path.startsWith("/api/") && path.endsWith(".json") ? path.slice(0, -5) : path;
  };
}

/** Whether a path's %-escapes decode (to UTF-8). */
function decodable(path: string): boolean {
  if (!path.includes("%")) return true;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * What answers while the daemon starts: `/healthz`, the web client's files (routes/web.ts) and, to
 * everything else, 503 "Parley is starting." (the port is open at once, so a client never meets a
 * refused socket).
 */
export function createStartingApp(config: Config): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ getPath: routedPath(basePath(config.baseUrl)) });
  app.use("*", refuseForeignHost(config));
  app.get("/healthz", (c) => c.json({ status: "ok" }, 200, { "Cache-Control": "no-store" }));
  app.route("/", assetRoutes());
  app.notFound((c) => c.json(errorBody([{ message: "Parley is starting.", path: "/" }]), 503));
  return app;
}

/** Creates the whole HTTP application. */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ getPath: routedPath(basePath(deps.config.baseUrl)) });

  // Each answer carries X-Request-Id, which the log lines and a 500's message name: a proxy's own
  // id (word characters, at most 64) is kept, so both logs tell of the same request.
  app.use("*", requestId({ limitLength: 64, generator: () => randomId(6) }));
  app.use("*", async (c, next) => {
    const started = performance.now();
    if (!decodable(c.req.path)) {
      // Every route may decode its path and parameters: a bad escape never reaches one.
      return c.json(errorBody([{ message: "The path has a malformed %-escape.", path: "/" }]), 400);
    }
    await next();
    log.debug("request", {
      id: c.get("requestId"),
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
  });

  // A page of another site that reaches a loopback Parley by a name pointed at 127.0.0.1 (DNS
  // rebinding) is refused before anything: http/host.ts.
  app.use("*", refuseForeignHost(deps.config));
  // A proxy set up for Convos may name another base URL than Parley's (http/request_base.ts).
  app.use("*", noteRequestBase(deps.config));
  if (deps.config.metrics) app.use("*", requestMetrics());

  app.use("/api/*", async (c, next) => {
    // A state change started by another origin is a CSRF attempt, cookie or not (a login form
    // posted by another site logs the victim into the attacker's account): http/origin.ts.
    const foreign = SAFE_METHODS.has(c.req.method) ? undefined : foreignRequest(c, deps.config);
    if (foreign) {
      const message = `Cross-site requests are not allowed: ${foreign.message}`;
      throw new ApiError(403, message, `/header/${foreign.header}`);
    }
    c.header("Cache-Control", "no-store");
    await next();
  });
  app.use("/api/*", loadSession(deps));
  if (deps.config.authHeader) app.use("/api/*", proxyLogin(deps));
  app.use("/api/*", noteSessionClient(deps));
  // Every other JSON operation reads at most JSON_BODY_LIMIT (http/body.ts).
  app.use(`/api${honoPath(API.sendMessage.path)}`, async (c, next) => {
    c.set("bodyLimit", SEND_BODY_LIMIT);
    await next();
  });
  app.use("/events", loadSession(deps));
  if (deps.config.authHeader) app.use("/events", proxyLogin(deps, true));

  // `host` as Convos gives it: where this client reached the server (X-Forwarded-Host behind a
  // trusted proxy), so that a client can build URLs.
  app.get("/api", (c) => {
    let host = deps.config.baseUrl.host;
    try {
      host = new URL(requestOrigin(c, deps.config)).host;
    } catch { /* why: a Host header that is no host: the base URL's host stands */ }
    // The operations' path as this client addresses them: under the base URL's path, if any.
    return c.json({ ...apiDocument(), basePath: `${basePath(deps.config.baseUrl)}/api`, host });
  });
  const operations = [
    // accounts
    userRoutes,
    usersRoutes,
    settingsRoutes,
    profileRoutes,
    // irc: connections, conversations, sending
    connectionRoutes,
    conversationRoutes,
    // history: messages, search, notifications
    messageRoutes,
    searchRoutes,
    notificationRoutes,
    // outside world: files, embed, updates, webhook
    filesRoutes,
    embedRoutes,
    webhookRoutes,
    updatesRoutes,
    // web client: i18n
    i18nRoutes,
    // account page and push notifications
    sessionRoutes,
    appTokenRoutes,
    certfpRoutes,
    pushRoutes,
    ignoreRoutes,
    // a conversation's notification level and draft
    conversationPrefsRoutes,
    // the web client's settings, on every device
    clientSettingsRoutes,
  ];
  for (const routes of operations) app.route("/api", routes(deps));
  // outside /api: probes for load balancers and systemd, metrics for Prometheus
  app.route("/", healthRoutes(deps));
  if (deps.config.metrics && !deps.config.metricsListen) app.route("/", metricsRoutes(deps));
  app.route("/", eventRoutes(deps));
  app.route("/", ircSocketRoutes(deps));
  // IRC clients' uploads (soju.im/filehost): their own login, outside /api's origin rule
  app.route("/", filehostRoutes(deps));
  // web client: static files and the single-page app (mounted after /api)
  app.route("/", webRoutes(deps));

  app.notFound(async (c) => {
    if (c.req.path === "/api" || c.req.path.startsWith("/api/")) {
      return c.json(errorBody([{ message: "Unknown operation.", path: "/" }]), 501);
    }
    if (opensPage(c)) {
      return notFoundPage(c, basePath(deps.config.baseUrl), (await dictionaries()).dictionaries);
    }
    return c.json(errorBody([{ message: "Not found.", path: "/" }]), 404);
  });

  app.onError((e, c) => {
    const failed = deps.store.backend.failure(e);
    if (failed) {
      // The database's own failure (full disk, not answering): 503, and the operator told.
      log.warn("request refused: the database failed", {
        id: c.get("requestId"),
        path: c.req.path,
        error: e,
      });
    }
    const err = fromDomain(e) ?? fromDomain(failed) ?? e;
    if (err instanceof ApiError) {
      return c.json(errorBody(err.errors), err.status as 400);
    }
    if (err instanceof HTTPException) {
      const status = err.status;
      const message = status === 413
        ? "The request body is too large."
        : err.message || "Bad request.";
      return c.json(errorBody([{ message, path: status === 413 ? "/body" : "/" }]), status);
    }
    const requestId = c.get("requestId");
    log.error("request failed", {
      id: requestId,
      method: c.req.method,
      path: c.req.path,
      error: err,
    });
    return c.json(
      errorBody([{ message: `Internal server error (request ${requestId}).`, path: "/" }]),
      500,
    );
  });

  return app;
}
