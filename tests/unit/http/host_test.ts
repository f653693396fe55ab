/**
 * DNS rebinding (http/host.ts): on a loopback listener without a reverse proxy, a request whose
 * Host is a name Parley does not have is refused; through the whole app, before registration.
 */
import { Hono } from "hono";
import { assert, assertEquals } from "../../support/assert.ts";
import { type Config, parseConfig } from "../../../config.ts";
import { foreignHost } from "../../../http/host.ts";
import { startApp } from "../../support/app.ts";

const configOf = (env: Record<string, string>) =>
  ({ ...parseConfig({ PARLEY_HOME: "/nonexistent", ...env }), secret: "s" }) as Config;

/** Whether a GET with this Host is refused under `config`. */
async function refused(config: Config, host?: string): Promise<boolean> {
  const app = new Hono().get("/", (c) => c.text(foreignHost(c, config) ? "refused" : ""));
  const res = await app.request("http://127.0.0.1/", { headers: host ? { host } : {} });
  return (await res.text()) === "refused";
}

Deno.test("host: a loopback listener answers to its names and to addresses only", async () => {
  const config = configOf({
    PARLEY_LISTEN: "http://127.0.0.1:3000",
    PARLEY_BASE_URL: "https://chat.example.org/",
  });
  for (
    const host of [
      "127.0.0.1:3000",
      "127.0.0.2",
      "[::1]:3000",
      "localhost:3000",
      "parley.localhost",
      "chat.example.org",
      "CHAT.example.org:443",
      "192.168.1.20:3000",
      "localhost.:3000",
      "chat.example.org.",
      undefined,
    ]
  ) assertEquals(await refused(config, host), false, String(host));
  for (
    const host of [
      "rebind.attacker.example:3000",
      "chat.example.org.attacker.example",
      "localhost.attacker.example",
      "x; script-src *",
    ]
  ) assertEquals(await refused(config, host), true, host);
});

Deno.test("host: behind a reverse proxy or on every interface, any name", async () => {
  const proxied = configOf({ PARLEY_LISTEN: "http://127.0.0.1:3000", PARLEY_REVERSE_PROXY: "1" });
  assertEquals(await refused(proxied, "chat.example.net"), false);
  const everywhere = configOf({ PARLEY_LISTEN: "http://0.0.0.0:3000" });
  assertEquals(await refused(everywhere, "homeserver.lan:3000"), false);
});

Deno.test("host: a rebinding page cannot register the first (admin) account", async () => {
  const a = await startApp();
  try {
    const body = JSON.stringify({ email: "attacker@evil.example", password: "long-enough-1" });
    const headers = {
      host: "rebind.attacker.example:3000",
      origin: "http://rebind.attacker.example:3000",
      "sec-fetch-site": "same-origin",
      "content-type": "application/json",
    };
    const res = await a.request("/api/user/register", { method: "POST", body, headers });
    assertEquals(res.status, 403);
    assertEquals(res.body.errors[0].path, "/header/host");
    assertEquals((await a.deps.store.users.list(undefined, 10)).length, 0);
    // The same request by the server's own address goes through.
    const own = await a.request("/api/user/register", {
      method: "POST",
      body,
      headers: { ...headers, host: "127.0.0.1:3000", origin: "http://127.0.0.1:3000" },
    });
    assert(own.status === 200, JSON.stringify(own.body));
  } finally {
    await a.close();
  }
});
