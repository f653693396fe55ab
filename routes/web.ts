/** Serves the web client: static assets with ETags, and index.html for every client route. */
import { Hono } from "hono";
import type { Context } from "hono";
import { extname, join, normalize } from "node:path";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { requestOrigin } from "../http/client.ts";
import { badRequest } from "../http/errors.ts";
import { afterLogout, csrfToken, endSession, loadSession } from "../http/session.ts";
import { safeEqual } from "../lib/crypto.ts";
import { getMimeType, mimes } from "hono/utils/mime";
import denoJson from "../deno.json" with { type: "json" };
import { ircLinkPath } from "./irc_link.ts";
import { basePath } from "../http/base_path.ts";
import { underBaseUrl } from "../lib/base_url.ts";

const STATIC = join(import.meta.dirname ?? ".", "..", "static");

// Hono's table of web types; the client's icons go out as they always have, without a charset.
const TYPES = { ...mimes, svg: "image/svg+xml" };

/**
 * The folder of the client's bundle: its entry and the chunks it loads, the only scripts the page
 * may run. Only `deno task build` writes there.
 */
const BUNDLE_DIR = "/dist/";

/**
 * The page's policy: no inline script, and no script but the bundle's (not `'self'`: uploads are
 * served from this origin too) and the service worker, connections only to this origin (and its
 * WebSocket).
 * `origin` is the one the browser reached this page at, `base` the base URL's path.
 */
function appCsp(origin: string, base: string): string {
  return [
    "default-src 'self'",
    `script-src ${origin}${base}${BUNDLE_DIR}`,
    `worker-src ${origin}${base}/sw.js`,
    "style-src 'self'",
    // Preview images come through the server (/api/embed/image): the page loads none from elsewhere.
    "img-src 'self' data: blob:",
    "media-src 'self' https:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "manifest-src 'self'",
  ].join("; ");
}

/** The client routes that all load the single page. */
const CLIENT_ROUTES = ["/", "/login", "/register", "/chat", "/chat/*", "/settings", "/settings/*"];

interface Asset {
  body: Uint8Array;
  etag: string;
  /** The gzipped body for text types, made once when first asked for. */
  gzip?: Promise<Uint8Array>;
}

const COMPRESSIBLE = new Set([".html", ".js", ".css", ".map", ".svg", ".webmanifest", ".json"]);

/** Gzips a body (assets are compressed once and kept, so requests pay nothing). */
async function gzip(body: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([body as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * The page under a base path: its own URLs (the bundle, the style sheet, the icon, the manifest)
 * start with it. The client finds the path from its bundle's URL.
 */
function underBase(html: Uint8Array<ArrayBuffer>, base: string): Uint8Array<ArrayBuffer> {
  if (!base) return html;
  const text = new TextDecoder().decode(html);
  return new TextEncoder().encode(text.replace(/ (href|src)="\//g, ` $1="${base}/`));
}

/** The page names where logging out leads when that is not the login page (see afterLogout). */
function withLogout(html: Uint8Array<ArrayBuffer>, to: string | undefined) {
  if (!to) return html;
  const escaped = to.replace(/[&"<>]/g, (ch) => `&#${ch.charCodeAt(0)};`);
  const text = new TextDecoder().decode(html);
  const meta = `<meta name="parley-logout" content="${escaped}" />`;
  return new TextEncoder().encode(text.replace("</head>", `  ${meta}\n  </head>`));
}

/**
 * Reads one file below static/, refusing anything that escapes it; cached by modification time.
 * `transform` makes the body served from the file's (index.html under a base path).
 */
async function readAsset(
  cache: Map<string, Asset & { mtime: number }>,
  rel: string,
  transform?: (body: Uint8Array<ArrayBuffer>) => Uint8Array<ArrayBuffer>,
) {
  const path = normalize(join(STATIC, rel));
  if (!path.startsWith(STATIC + "/")) return null;
  let stat: Deno.FileInfo;
  try {
    stat = await Deno.stat(path);
  } catch {
    return null;
  }
  if (!stat.isFile) return null;
  const mtime = stat.mtime?.getTime() ?? 0;
  const hit = cache.get(path);
  if (hit && hit.mtime === mtime) return hit;
  const read = await Deno.readFile(path);
  const body = transform ? transform(read) : read;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
  const etag = `"${[...digest.slice(0, 10)].map((b) => b.toString(16).padStart(2, "0")).join("")}"`;
  const asset = { body, mtime, etag };
  cache.set(path, asset);
  return asset;
}

/** Answers with an asset, or 304 when the browser already has this version. */
async function send(c: Context<AppEnv>, asset: Asset, rel: string, cacheControl: string) {
  c.header("ETag", asset.etag);
  c.header("Cache-Control", cacheControl);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Vary", "Accept-Encoding");
  if (c.req.header("if-none-match") === asset.etag) return c.body(null, 304);
  c.header("Content-Type", getMimeType(rel, TYPES) ?? "application/octet-stream");
  const accepts = /\bgzip\b/.test(c.req.header("accept-encoding") ?? "");
  if (accepts && COMPRESSIBLE.has(extname(rel)) && asset.body.length > 1024) {
    asset.gzip ??= gzip(asset.body);
    c.header("Content-Encoding", "gzip");
    return c.body((await asset.gzip) as Uint8Array<ArrayBuffer>, 200);
  }
  return c.body(asset.body as Uint8Array<ArrayBuffer>, 200);
}

/** The router for `/`, the client routes and the static files. */
export function webRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const cache = new Map<string, Asset & { mtime: number }>();
  const base = basePath(deps.config.baseUrl);

  const page = async (c: Context<AppEnv>) => {
    const asset = await readAsset(
      cache,
      "index.html",
      (html) => withLogout(underBase(html, base), deps.config.authLogoutUrl),
    );
    if (!asset) return c.text("The web client is missing.", 500);
    // The Host header is the client's word: anything but a plain origin falls back to the base URL.
    const origin = requestOrigin(c, deps.config);
    const safe = /^https?:\/\/[\w.:[\]-]+$/.test(origin) ? origin : deps.config.baseUrl.origin;
    c.header("Content-Security-Policy", appCsp(safe, base));
    c.header("Referrer-Policy", "same-origin");
    c.header("X-Frame-Options", "DENY");
    return await send(c, asset, "index.html", "no-cache");
  };
  // An irc:// link (the browser's registered handler opens /register?uri=...) leads a logged-in
  // user on, as Convos's does; anyone else gets the page.
  app.get("/register", loadSession(deps), async (c, next) => {
    const uri = c.req.query("uri");
    const user = c.get("user");
    const path = uri && user ? await ircLinkPath(deps.store, user.id, uri) : undefined;
    if (!path) return await next();
    return c.redirect(
      underBaseUrl(deps.config.baseUrl, path).href.slice(
        deps.config.baseUrl.origin.length,
      ),
      302,
    );
  });
  for (const route of CLIENT_ROUTES) app.get(route, page);

  // Convos's client asks on each page load whether its service worker is out of date.
  app.get("/sw/info", (c) => c.json({ mode: "production", version: denoJson.version }));

  // Convos's file links: the file itself lives at the API's URL (with its extension, if given).
  // The web client's links end with the file's name (`/file/1/<id>/notes.txt`), for the reader.
  app.get("/file/:uid/:fid/:name?", (c) => {
    const path = `api/files/${encodeURIComponent(c.req.param("uid"))}/${
      encodeURIComponent(c.req.param("fid"))
    }`;
    return c.redirect(underBaseUrl(deps.config.baseUrl, path).pathname, 302);
  });

  // Convos's logout link. A GET that ends a session must come from Parley's own page: it carries
  // the session's csrf value, or the browser says the request is same-origin (Sec-Fetch-Site is
  // set by the browser and cannot be forged by another site's page).
  app.get("/logout", loadSession(deps), async (c) => {
    const hash = c.get("sessionHash");
    if (hash) {
      const csrf = c.req.query("csrf") ?? "";
      const sameOrigin = c.req.header("sec-fetch-site") === "same-origin";
      if (!sameOrigin && !safeEqual(csrf, await csrfToken(deps, hash))) {
        throw badRequest("Invalid csrf token.", "/query/csrf");
      }
      await endSession(c, deps);
    }
    return c.redirect(afterLogout(deps.config), 302);
  });

  app.route("/", assetRoutes());
  return app;
}

/**
 * The files read for assetRoutes, by path: one cache for the starting app and the app (the files
 * are the same, whatever the base path), so the files served during a start are not held twice.
 */
const ASSETS = new Map<string, Asset & { mtime: number }>();

/**
 * The files below static/ but the page (the bundle and its chunks, the style sheet, the icon, the
 * manifest, the service worker). They need nothing of the app, so they are served while the
 * daemon starts too: a page open across a restart may fetch a chunk then.
 */
export function assetRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/*", async (c, next) => {
    const rel = decodeURIComponent(c.req.path).slice(1);
    if (rel === "" || rel === "index.html" || rel.startsWith("app/")) return await next();
    const asset = await readAsset(ASSETS, rel);
    if (!asset) return await next();
    // The bundle keeps its name across builds, so browsers revalidate with the ETag.
    return await send(c, asset, rel, "no-cache");
  });
  return app;
}
