// deno-lint-ignore-file no-explicit-any -- test responses are read field by field
/**
 * Parley's HTTP application in the test process: the real app over a real store in a temporary
 * data folder, answered through `app.request()` (no socket), with the client address chosen per
 * request. For what only a socket shows, `listen()` serves the same app on 127.0.0.1.
 *
 * `client()` gives the same ApiClient the daemon tests use, answered in process; every answer of
 * a documented operation is checked against the API document on the way (a mismatch throws),
 * so each route test also keeps the document true.
 */
import type { Hono } from "hono";
import { parseConfig } from "../../config.ts";
import { createApp } from "../../app.ts";
import { wireDeps } from "../../deps.ts";
import { openStore, type Store } from "../../store/mod.ts";
import { testDatabaseUrl } from "./test_backend.ts";
import type { AppDeps, AppEnv } from "../../http/env.ts";
import { ApiClient } from "./api.ts";
import { responseErrors } from "./openapi.ts";
import type { Clock } from "../../lib/clock.ts";

/** One answer: status, parsed JSON body (or text), headers. */
export interface AppResponse {
  status: number;
  body: any;
  headers: Headers;
}

/** Sees one request and its answer. */
export type Observer = (req: Request, res: Response) => void | Promise<void>;

/** Throws when `res` (to `req`) breaks the document; an undocumented path is left alone. */
export async function checkAgainstDocument(req: Request, res: Response): Promise<void> {
  const type = res.headers.get("content-type") ?? "";
  const text = await res.clone().text();
  const body = type.includes("json") && text ? JSON.parse(text) : text;
  const errors = responseErrors(req.method, req.url, res.status, body);
  if (errors.length && !errors[0].includes("no such operation")) {
    throw new Error(`the answer breaks the API document:\n${errors.join("\n")}`);
  }
}

/** The app of one test and its dependencies. */
export interface TestApp {
  app: Hono<AppEnv>;
  deps: AppDeps;
  /** Resolves once everything stored so far is searchable (SQLite indexes behind the writer). */
  searchable(): Promise<void>;
  home: string;
  /** Sends one request from `addr` (the socket peer; default 127.0.0.1). */
  request(path: string, init?: RequestInit, addr?: string): Promise<AppResponse>;
  /** POSTs `body` as JSON, with `cookie` when given. */
  post(
    path: string,
    body: unknown,
    opts?: { cookie?: string; addr?: string },
  ): Promise<AppResponse>;
  /**
   * A client with its own cookie jar, answered in process from `addr`; `observe` sees each
   * request with its answer (after the document check).
   */
  client(opts?: { addr?: string; observe?: Observer }): ApiClient;
  /** Registers a user (the first becomes admin) and returns its session cookie. */
  register(email: string, password?: string): Promise<string>;
  /** Logs in again: a new session of its own (another browser); returns its cookie. */
  login(email: string, password?: string): Promise<string>;
  /** Serves the app on a free loopback port; the returned function stops it. */
  listen(): Promise<{ port: number; stop: () => Promise<void> }>;
  close(): Promise<void>;
}

/**
 * Builds the app over a fresh data folder; `env` adds PARLEY_* settings, `storeView` shows the
 * app a view of the store (a backend with fewer capabilities), `ircClock` paces the IRC
 * manager's connects (a clock the test moves).
 */
export async function startApp(
  env: Record<string, string> = {},
  storeView: (store: Store) => Store = (store) => store,
  ircClock?: Clock,
): Promise<TestApp> {
  const home = await Deno.makeTempDir({ prefix: "parley-app-" });
  const config = {
    ...parseConfig({
      PARLEY_HOME: home,
      PARLEY_LISTEN: "http://127.0.0.1:3000",
      PARLEY_CONNECT_DELAY: "0",
      PARLEY_UPDATE_URL: "",
      // No new user's own default connection reaching out to the configured IRC network.
      PARLEY_NEW_USER_CONNECTION: "0",
      ...env,
    }),
    secret: "test secret, long enough",
  };
  // The runner's PostgreSQL pass gives each app a database of its own.
  const databaseUrl = await testDatabaseUrl();
  const opened = await openStore(home, databaseUrl);
  const store = storeView(opened);
  // Wired as cli/daemon.ts wires them, so that deleting a user does here what it does there.
  const deps = await wireDeps(config, store, "test", ircClock);
  const { irc } = deps;
  const app = createApp(deps);

  async function request(path: string, init: RequestInit = {}, addr = "127.0.0.1") {
    const remoteAddr = { transport: "tcp" as const, hostname: addr, port: 40000 };
    const res = await app.request(path, init, { remoteAddr });
    const text = await res.text();
    let body: unknown = text;
    if ((res.headers.get("content-type") ?? "").includes("json") && text) body = JSON.parse(text);
    return { status: res.status, body, headers: res.headers };
  }

  const post = (path: string, body: unknown, opts: { cookie?: string; addr?: string } = {}) =>
    request(path, {
      method: "POST",
      body: JSON.stringify(body),
      headers: {
        "content-type": "application/json",
        ...(opts.cookie ? { cookie: opts.cookie } : {}),
      },
    }, opts.addr);

  const remote = (addr: string) => ({
    remoteAddr: { transport: "tcp" as const, hostname: addr, port: 40000 },
  });
  function client(opts: { addr?: string; observe?: Observer } = {}) {
    return new ApiClient(config.baseUrl.origin, async (req) => {
      const res = await app.fetch(req, remote(opts.addr ?? "127.0.0.1"));
      if (new URL(req.url).pathname.startsWith("/api/")) await checkAgainstDocument(req, res);
      await opts.observe?.(req, res);
      return res;
    });
  }

  /** Registers or logs in through the API; the new session's cookie. */
  const sessionCookie = async (
    how: "register" | "login",
    email: string,
    password = "correct horse battery",
  ) => {
    const res = await app.request(`/api/user/${how}`, {
      method: "POST",
      body: JSON.stringify({ email, password }),
      headers: { "content-type": "application/json" },
    });
    if (res.status !== 200) throw new Error(`${how} ${email}: ${await res.text()}`);
    await res.body?.cancel();
    return res.headers.getSetCookie()[0].split(";")[0];
  };

  return {
    app,
    deps,
    async searchable() {
      await opened.messages.flush();
      await opened.messages.searchable?.();
    },
    home,
    request,
    post,
    client,
    register: (email, password) => sessionCookie("register", email, password),
    login: (email, password) => sessionCookie("login", email, password),
    listen() {
      return new Promise((resolve) => {
        const server = Deno.serve({
          hostname: "127.0.0.1",
          port: 0,
          onListen: ({ port }) =>
            resolve({
              port,
              stop: async () => {
                await server.shutdown();
              },
            }),
        }, (req, info) => app.fetch(req, { remoteAddr: info.remoteAddr }));
      });
    },
    async close() {
      await irc.stop();
      await opened.close();
      await Deno.remove(home, { recursive: true }).catch(() => {});
    },
  };
}

/** Runs `fn` while collecting what the logger writes to stderr (warnings and errors). */
export async function captureErrors<T>(
  fn: () => Promise<T>,
): Promise<{ value: T; lines: string[] }> {
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  try {
    return { value: await fn(), lines };
  } finally {
    console.error = original;
  }
}
