/** The bouncer listener in a test: a real ngircd, the app in process, a connected connection. */
import { assertEquals } from "./assert.ts";
import { startApp } from "./app.ts";
import { startIrcServer } from "./ngircd.ts";
import { poll } from "./poll.ts";
import { startBouncer } from "../../bouncer/mod.ts";
import type { BouncerLimits } from "../../bouncer/limits.ts";

export const PASSWORD = "correct horse battery";
export const EMAIL = "admin@example.com";

/** Starts ngircd, the app and the listener; the admin has one connected connection. */
export async function setupBouncer(limits: Partial<BouncerLimits> = {}) {
  const ngircd = await startIrcServer();
  const app = await startApp({ PARLEY_TEST_FAST_IRC: "1" });
  const bouncer = startBouncer(app.deps, {
    addresses: [{ tls: false, hostname: "127.0.0.1", port: 0 }],
    limits: { registerTimeoutMs: 500, ...limits },
  });
  const api = app.client();
  await api.register(EMAIL, PASSWORD);
  const made = await api.post("/api/connections", {
    url: `irc://127.0.0.1:${ngircd.port}?nick=alice`,
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
    await ngircd.close();
  };
  return { ngircd, app, bouncer, api, cid, port: bouncer.ports[0], close };
}
