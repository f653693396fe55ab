// deno-lint-ignore-file no-explicit-any -- test responses are read field by field
/**
 * Parley's HTTP application in the test process: the real app over a real store in a temporary
 * data folder, answered through `app.request()` (no socket), with the client address chosen per
 * request. For what only a socket shows, `listen()` serves the same app on 127.0.0.1.
 */
import type { Hono } from "hono";
import { parseConfig } from "../../config.ts";
import { createApp } from "../../app.ts";
import { openStore, type Store } from "../../store/mod.ts";
import { EventBus } from "../../lib/bus.ts";
import { IrcManager } from "../../irc/manager.ts";
import { ConnectionService } from "../../irc/connection_service.ts";
import type { AppDeps, AppEnv } from "../../http/env.ts";

/** One answer: status, parsed JSON body (or text), headers. */
export interface AppResponse {
  status: number;
  body: any;
  headers: Headers;
}

/** The app of one test and its dependencies. */
export interface TestApp {
  app: Hono<AppEnv>;
  deps: AppDeps;
  home: string;
  /** Sends one request from `addr` (the socket peer; default 127.0.0.1). */
  request(path: string, init?: RequestInit, addr?: string): Promise<AppResponse>;
  /** POSTs `body` as JSON, with `cookie` when given. */
  post(
    path: string,
    body: unknown,
    opts?: { cookie?: string; addr?: string },
  ): Promise<AppResponse>;
  /** Registers a user (the first becomes admin) and returns its session cookie. */
  register(email: string, password?: string): Promise<string>;
  /** Serves the app on a free loopback port; the returned function stops it. */
  listen(): Promise<{ port: number; stop: () => Promise<void> }>;
  close(): Promise<void>;
}

/**
 * Builds the app over a fresh data folder; `env` adds PARLEY_* settings, `storeView` shows the
 * app a view of the store (a backend with fewer capabilities).
 */
export async function startApp(
  env: Record<string, string> = {},
  storeView: (store: Store) => Store = (store) => store,
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
  const opened = await openStore(home);
  const store = storeView(opened);
  const bus = new EventBus();
  const irc = new IrcManager({ config, store, bus, version: "test" });
  const connections = new ConnectionService({ config, store, bus, irc });
  const deps: AppDeps = { config, store, bus, irc, connections };
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

  return {
    app,
    deps,
    home,
    request,
    post,
    async register(email, password = "correct horse battery") {
      const res = await app.request("/api/user/register", {
        method: "POST",
        body: JSON.stringify({ email, password }),
        headers: { "content-type": "application/json" },
      });
      if (res.status !== 200) throw new Error(`register ${email}: ${await res.text()}`);
      await res.body?.cancel();
      return res.headers.getSetCookie()[0].split(";")[0];
    },
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
