/** embed: oEmbed-style information about a URL, as JSON, an HTML fragment or JSONP. */
import { Hono } from "hono";
import { bind } from "../http/bind.ts";
import type { Context } from "hono";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { ApiError, badRequest } from "../http/errors.ts";
import { currentUser, requireUser } from "../http/session.ts";
import { queryParams } from "../http/validate.ts";
import { API } from "../protocol/contract/mod.ts";
import { Embedder } from "../embed/embed.ts";
import { FetchFailed, FetchRefused } from "../embed/safe_fetch.ts";
import { ImageProxy, TooManyFetches } from "../embed/image_proxy.ts";

/** A JSONP callback name: an identifier or a dotted path, nothing that could be script. */
const CALLBACK = /^[A-Za-z_$][\w$.]{0,63}$/;

/** The URL a user asked about, or a 400 at `/query/url`. */
function urlOf(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw badRequest("url must be an absolute http:// or https:// URL.", "/query/url");
  }
}

/** A fetch's failure as the API's error: refused by policy is the caller's, failed the remote's. */
function fetchError(err: unknown): unknown {
  if (err instanceof FetchRefused) return badRequest(err.message, "/query/url");
  if (err instanceof FetchFailed) return new ApiError(502, err.message, "/query/url");
  return err;
}

/**
 * Routes /api/embed, /api/embed.html and /api/embed.jsonp (`.json` is stripped by the app), and
 * /api/embed/image.
 */
export function embedRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const embedder = new Embedder(deps.config.embedAllowPrivate);
  const images = new ImageProxy(deps.config.embedAllowPrivate);

  const lookup = async (c: Context<AppEnv>, format: "json" | "html" | "jsonp") => {
    const query = queryParams(c, API.embed.query);
    if (format === "jsonp" && !CALLBACK.test(query.callback ?? "")) {
      throw badRequest("callback must be a JavaScript identifier.", "/query/callback");
    }
    const url = urlOf(query.url);
    const viewer = currentUser(c).id;
    // As Convos: an answer from the cache says so, but only to a user who has had it before (the
    // cache is shared: another user's lookup is theirs to know).
    if (embedder.cached(url, viewer)) c.header("X-Cached", "1");
    let info;
    try {
      info = await embedder.embed(url, viewer);
    } catch (err) {
      throw fetchError(err);
    }
    c.header("X-Content-Type-Options", "nosniff");
    if (format === "html") {
      c.header("Content-Security-Policy", "default-src 'none'; img-src http: https:");
      return c.html(info.html);
    }
    if (format === "jsonp") {
      const json = JSON.stringify(info).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
      return c.body(`/**/${query.callback}(${json});`, 200, {
        "Content-Type": "application/javascript; charset=utf-8",
      });
    }
    return c.json(info);
  };

  // Logged-in users only, so that strangers cannot use the server as an open proxy.
  bind(app, "embedImage", requireUser, async (c) => {
    const url = urlOf(queryParams(c, API.embedImage.query).url);
    const viewer = currentUser(c).id;
    if (images.cached(url, viewer)) c.header("X-Cached", "1");
    let img;
    try {
      img = await images.image(url, viewer);
    } catch (err) {
      if (err instanceof TooManyFetches) {
        c.header("Retry-After", String(err.retryAfterS));
        throw new ApiError(err.whose === "user" ? 429 : 503, err.message);
      }
      throw fetchError(err);
    }
    return c.body(img.bytes, 200, {
      "Content-Type": img.type,
      // Private: the answer depends on the session; the same URL gives the same image for a day.
      "Cache-Control": "private, max-age=86400",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "Cross-Origin-Resource-Policy": "same-origin",
    });
  });
  // One operation in three formats, told by the path: `/embed`, `/embed.html`, `/embed.jsonp`.
  bind(app, "embed", requireUser, (c) => {
    const format = /\.(html|jsonp)$/.exec(c.req.path)?.[1] as "html" | "jsonp" | undefined;
    return lookup(c, format ?? "json");
  });
  return app;
}
