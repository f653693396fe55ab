/**
 * Facts about a request's client (http/client.ts): its address, whether it came over HTTPS, the
 * origin it reached Parley at, and whether another site started it. A proxy's headers count only
 * with PARLEY_REVERSE_PROXY=1: without it they are whatever the client wrote.
 */
import { Hono } from "hono";
import { assertEquals } from "../../support/assert.ts";
import { type Config, parseConfig } from "../../../config.ts";
import { clientAddress, isCrossSite, isHttps, requestOrigin } from "../../../http/client.ts";
import type { AppEnv } from "../../../http/env.ts";

function config(env: Record<string, string> = {}): Config {
  return { ...parseConfig({ PARLEY_HOME: "/nonexistent", ...env }), secret: "s" } as Config;
}

/** What each function says of one request, as the app sees it with `config`. */
async function facts(cfg: Config, headers: Record<string, string> = {}, url = "http://p.test/x") {
  const app = new Hono<AppEnv>().get("/x", (c) =>
    c.json({
      address: clientAddress(c, cfg),
      https: isHttps(c, cfg),
      origin: requestOrigin(c, cfg),
      crossSite: isCrossSite(c, cfg),
    }));
  const remoteAddr = { transport: "tcp", hostname: "192.0.2.1", port: 40000 } as Deno.NetAddr;
  const res = await app.request(url, { headers }, { remoteAddr });
  return await res.json();
}

Deno.test("client address: the socket peer, or behind a proxy X-Forwarded-For's last hop", async () => {
  const xff = { "x-forwarded-for": "10.0.0.1, 203.0.113.5 " };
  assertEquals(
    (await facts(config(), xff)).address,
    "192.0.2.1",
    "no proxy: the header is ignored",
  );
  const proxied = config({ PARLEY_REVERSE_PROXY: "1" });
  assertEquals((await facts(proxied, xff)).address, "203.0.113.5", "the hop the proxy appended");
  assertEquals((await facts(proxied, { "x-forwarded-for": " , " })).address, "192.0.2.1");
  assertEquals((await facts(proxied)).address, "192.0.2.1");
});

Deno.test("https: by the listen or base URL, or a trusted proxy's X-Forwarded-Proto", async () => {
  const proto = { "x-forwarded-proto": "https" };
  assertEquals((await facts(config(), proto)).https, false, "an untrusted header says nothing");
  assertEquals((await facts(config({ PARLEY_REVERSE_PROXY: "1" }), proto)).https, true);
  assertEquals((await facts(config({ PARLEY_REVERSE_PROXY: "1" }))).https, false);
  assertEquals((await facts(config({ PARLEY_BASE_URL: "https://chat.example/" }))).https, true);
});

Deno.test("request origin: the Host header, X-Forwarded-Host only behind a proxy", async () => {
  const headers = { host: "parley.example:8080", "x-forwarded-host": "evil.example" };
  assertEquals((await facts(config(), headers)).origin, "http://parley.example:8080");
  const proxied = config({ PARLEY_REVERSE_PROXY: "1" });
  assertEquals(
    (await facts(proxied, { ...headers, "x-forwarded-proto": "https" })).origin,
    "https://evil.example",
    "the proxy's host and scheme",
  );
  assertEquals((await facts(config(), {}, "http://q.test:81/x")).origin, "http://q.test:81");
});

Deno.test("cross-site: Sec-Fetch-Site says so, or an Origin that is not Parley's", async () => {
  const cfg = config({ PARLEY_BASE_URL: "https://chat.example/" });
  const host = { host: "parley.example" };
  assertEquals((await facts(cfg, host)).crossSite, false, "a script sends no Origin");
  assertEquals((await facts(cfg, { ...host, "sec-fetch-site": "cross-site" })).crossSite, true);
  assertEquals((await facts(cfg, { ...host, "sec-fetch-site": "same-site" })).crossSite, false);
  // The base URL is https, so the request's own origin is too.
  assertEquals((await facts(cfg, { ...host, origin: "https://parley.example" })).crossSite, false);
  assertEquals((await facts(cfg, { ...host, origin: "https://chat.example" })).crossSite, false);
  assertEquals((await facts(cfg, { ...host, origin: "http://parley.example" })).crossSite, true);
  assertEquals((await facts(cfg, { ...host, origin: "null" })).crossSite, true);
});
