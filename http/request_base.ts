/**
 * Convos learns its base URL per request from the reverse proxy's `X-Request-Base` header; Parley
 * takes it from PARLEY_BASE_URL alone (its page, cookie path and links are made from that). A
 * proxy set up for Convos that names another base than Parley's is a setting to fix, so the first
 * such request (behind PARLEY_REVERSE_PROXY, where the header is the proxy's) is logged with the
 * value to give. Once per process: a header is no reason to write a line per request.
 */
import type { MiddlewareHandler } from "hono";
import type { Config } from "../config.ts";
import { log } from "../lib/log.ts";

/** A base URL's text without its final slash, or undefined for no URL. */
function baseText(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:"
      ? url.href.replace(/\/$/, "")
      : undefined;
  } catch {
    return undefined;
  }
}

/** Logs, once, a proxy's X-Request-Base that differs from the base URL Parley uses. */
export function noteRequestBase(config: Config): MiddlewareHandler {
  const ours = baseText(config.baseUrl.href);
  let told = !config.reverseProxy;
  return async (c, next) => {
    if (!told) {
      const header = c.req.header("x-request-base");
      const theirs = header === undefined ? undefined : baseText(header);
      if (theirs !== undefined && theirs !== ours) {
        told = true;
        log.warn("the reverse proxy's X-Request-Base is not PARLEY_BASE_URL", {
          x_request_base: theirs.slice(0, 300),
          base_url: ours,
          fix: "set PARLEY_BASE_URL to the proxy's base (Parley does not read the header)",
        });
      }
    }
    await next();
  };
}
