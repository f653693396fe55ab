/**
 * The upload URL of soju.im/filehost (bouncer/filehost.ts names it): an IRC client (gamja, Goguma)
 * POSTs the file itself as the body, its type in Content-Type and its name in Content-Disposition,
 * with the credentials it logs in to the listener with as HTTP Basic (`EMAIL[/NETWORK@CLIENT]`
 * and the password or an app token), checked by the listener's own login, throttle included. The
 * file is kept and served as a web upload (routes/files.ts: the same size limit, media types and
 * safe serving), and the answer is `201 Created` with its URL in `Location`.
 *
 * The origin rule (http/origin.ts guards /api): this path is outside /api, takes no cookie and
 * answers a missing login without a `Basic` challenge, so a browser never holds credentials for
 * it that another site's page could make it send. A request therefore carries its credentials
 * only when a script put them there, and any origin may do so (gamja is served from its own
 * place): CORS answers every origin. A form posted by another site (a navigation) is refused.
 */
import { Hono } from "hono";
import { join } from "node:path";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { errorBody } from "../http/errors.ts";
import { clientAddress } from "../http/client.ts";
import { mediaType } from "../lib/media_types.ts";
import { log } from "../lib/log.ts";
import { authenticate } from "../bouncer/auth.ts";
import { FILEHOST_PATH } from "../bouncer/filehost.ts";
import { cleanFileName, Spool, UploadTooLarge } from "../files/upload.ts";
import { FileQuotaError, FileTooLargeError } from "../store/files.ts";
import { head, uploadName } from "./files.ts";
import { underBaseUrl } from "../lib/base_url.ts";

/** The uploaded file's name from `Content-Disposition` (`filename*` first), else "upload". */
function dispositionName(header: string | undefined): string {
  if (!header) return "upload";
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (star) {
    try {
      return cleanFileName(decodeURIComponent(star[1].trim()));
    } catch { /* why: a bad escape: the plain name below is used instead */ }
  }
  const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/.exec(header);
  if (quoted) return cleanFileName(quoted[1].replace(/\\(.)/g, "$1"));
  const bare = /filename\s*=\s*([^;\s]+)/.exec(header);
  return bare ? cleanFileName(bare[1]) : "upload";
}

/** User and password of an HTTP Basic `Authorization`, or undefined. */
function basicCredentials(header: string | undefined): [string, string] | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]{1,2048})$/i.exec(header?.trim() ?? "");
  if (!m) return undefined;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(
      Uint8Array.from(atob(m[1]), (ch) => ch.charCodeAt(0)),
    );
  } catch {
    return undefined;
  }
  const colon = text.indexOf(":");
  return colon < 0 ? undefined : [text.slice(0, colon), text.slice(colon + 1)];
}

/** Routes of the filehost upload URL. */
export function filehostRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const path = `/${FILEHOST_PATH}`;
  const max = deps.config.maxUploadSize;

  // CORS for a client served from anywhere: it sends its own Authorization and reads Location.
  app.use(path, async (c, next) => {
    const origin = c.req.header("origin");
    if (origin) {
      c.header("Access-Control-Allow-Origin", origin);
      c.header("Access-Control-Allow-Credentials", "true");
      c.header("Vary", "Origin");
    }
    c.header("Access-Control-Allow-Methods", "OPTIONS, POST");
    c.header("Access-Control-Allow-Headers", "Authorization, Content-Type, Content-Disposition");
    c.header("Access-Control-Expose-Headers", "Location");
    c.header("Cache-Control", "no-store");
    await next();
  });

  app.options(path, (c) => {
    c.header("Allow", "OPTIONS, POST");
    c.header("Accept-Post", "*/*");
    return c.body(null, 204);
  });

  app.post(path, async (c) => {
    const fail = (status: 400 | 401 | 403 | 413 | 429, message: string, at: string) =>
      c.json(errorBody([{ message, path: at }]), status);
    const mode = c.req.header("sec-fetch-mode");
    if (mode === "navigate" || mode === "nested-navigate") {
      return fail(403, "Upload with a script, not a form.", "/header/sec-fetch-mode");
    }
    const creds = basicCredentials(c.req.header("authorization"));
    if (!creds) {
      return fail(401, "Log in with HTTP Basic, as to the IRC listener.", "/header/authorization");
    }
    const login = await authenticate(deps, creds[0], creds[1], clientAddress(c, deps.config));
    if (login === "throttled") {
      return fail(429, "Too many failed logins: wait a minute.", "/header/authorization");
    }
    if (login === "suspended") {
      return fail(403, "This account is suspended.", "/header/authorization");
    }
    if (typeof login === "string") {
      return fail(401, "Wrong username or password.", "/header/authorization");
    }
    const length = Number(c.req.header("content-length") ?? "NaN");
    const tooLarge = () => fail(413, `The file is larger than ${max} bytes.`, "/body");
    if (Number.isFinite(length) && length > max) return tooLarge();
    const body = c.req.raw.body;
    if (!body) return fail(400, "The request has no file.", "/body");
    const userId = login.user.id;
    const spool = await Spool.create(join(deps.config.home, "files", String(userId)), max);
    try {
      try {
        for await (const chunk of body) await spool.write(chunk);
      } catch (err) {
        if (err instanceof UploadTooLarge) return tooLarge();
        throw err;
      }
      const name = uploadName(dispositionName(c.req.header("content-disposition")));
      const claimed = c.req.header("content-type") ?? "";
      const saved = await deps.store.files.save(
        {
          userId,
          name,
          type: mediaType(claimed, name, await head(spool.path)),
          writeOnly: false,
        },
        await spool.readable(),
        max,
      );
      const ext = /\.[A-Za-z0-9]{1,10}$/.exec(saved.name)?.[0].toLowerCase() ?? "";
      const url = underBaseUrl(
        deps.config.baseUrl,
        `api/files/${saved.userId}/${encodeURIComponent(saved.id)}${ext}`,
      ).href;
      log.debug("filehost upload", { uid: userId, bytes: saved.size });
      c.header("Location", url);
      return c.json({ url }, 201);
    } catch (err) {
      if (err instanceof FileTooLargeError) return tooLarge();
      if (err instanceof FileQuotaError) return fail(413, err.message, "/body");
      throw err;
    } finally {
      await spool.discard();
    }
  });

  return app;
}
