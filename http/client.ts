/** Facts about the client of a request: address, scheme, and whether it comes from another site. */
import type { Context } from "hono";
import type { Config } from "../config.ts";
import type { AppEnv } from "./env.ts";

/**
 * The client's address. Behind a trusted proxy (PARLEY_REVERSE_PROXY=1) it is X-Forwarded-For's
 * last hop, the one that proxy appended (nginx's `$proxy_add_x_forwarded_for`): the hops before
 * it are whatever the client wrote. Else the socket peer.
 */
export function clientAddress(c: Context<AppEnv>, config: Config): string {
  if (config.reverseProxy) {
    const hops = (c.req.header("x-forwarded-for") ?? "").split(",").map((h) => h.trim())
      .filter(Boolean);
    if (hops.length) return hops[hops.length - 1];
  }
  return c.env?.remoteAddr?.hostname ?? "unknown";
}

/** Whether the request reached Parley over HTTPS (directly, via a trusted proxy, or per base URL). */
export function isHttps(c: Context, config: Config): boolean {
  if (config.baseUrl.protocol === "https:" || config.listen.protocol === "https:") return true;
  return config.reverseProxy && c.req.header("x-forwarded-proto") === "https";
}

/** The origin this server is reached at for this request. */
export function requestOrigin(c: Context, config: Config): string {
  const url = new URL(c.req.url);
  const host = (config.reverseProxy && c.req.header("x-forwarded-host")) || c.req.header("host") ||
    url.host;
  return `${isHttps(c, config) ? "https" : url.protocol.slice(0, -1)}://${host}`;
}

/** True when the browser says the request was started by another site (CSRF and socket hijacking). */
export function isCrossSite(c: Context, config: Config): boolean {
  const site = c.req.header("sec-fetch-site");
  if (site === "cross-site") return true;
  const origin = c.req.header("origin");
  // Scripts and curl send no Origin; browsers always do on cross-origin state changes.
  if (!origin) return false;
  return origin !== requestOrigin(c, config) && origin !== config.baseUrl.origin;
}
