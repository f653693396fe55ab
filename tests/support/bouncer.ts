/**
 * The bouncer listener in a test: a real ngircd (or a scripted server), the app in process, a
 * connected connection.
 */
import { assertEquals } from "./assert.ts";
import { startApp } from "./app.ts";
import { startIrcServer } from "./ngircd.ts";
import { poll } from "./poll.ts";
import { startBouncer } from "../../bouncer/mod.ts";
import type { BouncerLimits } from "../../bouncer/limits.ts";
import { type HistoryService, historyService } from "../../bouncer/history/mod.ts";

export const PASSWORD = "correct horse battery";
export const EMAIL = "admin@example.com";

/**
 * Starts ngircd, the app and the listener; the admin has one connected connection. `history`
 * wraps the store's history service (a test may hold a step of it back).
 */
export async function setupBouncer(
  limits: Partial<BouncerLimits> = {},
  history?: (real: HistoryService) => HistoryService,
  /** A certificate and key (PEM) for an ircs:// listener beside the plain one (`tlsPort`). */
  tls?: { cert: string; key: string },
) {
  const ngircd = await startIrcServer();
  const s = await setupBouncerOn(ngircd.url, limits, history, tls);
  return {
    ...s,
    ngircd,
    close: async () => {
      await s.close();
      await ngircd.close();
    },
  };
}

/**
 * The same on another upstream (`irc://127.0.0.1:PORT`, such as a scripted server's), which
 * the test starts and stops itself.
 */
export async function setupBouncerOn(
  url: string,
  limits: Partial<BouncerLimits> = {},
  history?: (real: HistoryService) => HistoryService,
  tls?: { cert: string; key: string },
) {
  const app = await startApp({ PARLEY_TEST_FAST_IRC: "1" });
  const real = historyService(app.deps);
  const bouncer = startBouncer(app.deps, {
    addresses: [
      { tls: false, hostname: "127.0.0.1", port: 0 },
      ...tls ? [{ tls: true, hostname: "127.0.0.1", port: 0 }] : [],
    ],
    tls,
    // Long enough for a login on a loaded machine (argon2 runs on a shared core): a test of the
    // timeout itself sets a short one.
    limits: { registerTimeoutMs: 20_000, ...limits },
    history: real && history ? history(real) : undefined,
  });
  const api = app.client();
  await api.register(EMAIL, PASSWORD);
  const made = await api.post("/api/connections", {
    url: `${url}?nick=alice`,
  });
  assertEquals(made.status, 200, JSON.stringify(made.body));
  const cid = made.body.connection_id as string;
  await poll("connected", async () => {
    const r = await api.get("/api/connections");
    return r.body.connections.find((c: { connection_id: string }) => c.connection_id === cid)
      ?.state === "connected";
  });
  const close = async () => {
    await bouncer.close();
    await app.close();
  };
  return { app, bouncer, api, cid, port: bouncer.ports[0], tlsPort: bouncer.ports[1], close };
}
