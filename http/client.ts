/** Facts about the client of a request: address, scheme, and whether it comes from another site. */
import type { Context } from "hono";
import type { Config } from "../config.ts";
import type { AppEnv } from "./env.ts";

/** The client's address: X-Forwarded-For's first hop behind a trusted proxy, else the socket peer. */
export function clientAddress(c: Context<AppEnv>, config: Config): string {
  if (config.reverseProxy) {
    const fwd = c.req.header("x-forwarded-for");
    if (fwd) return fwd.split(",")[0].trim();
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
