/** embed: link preview information for a URL, as JSON, an HTML fragment or JSONP. */
import { Hono } from "hono";
import type { Context } from "hono";
import { z } from "zod";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { badRequest } from "../http/errors.ts";
import { requireUser } from "../http/session.ts";
import { queryParams } from "../http/validate.ts";
import { Embedder } from "../embed/embed.ts";
import { EmbedFailed, EmbedRefused } from "../embed/fetch.ts";
import type { EmbedInfo } from "../embed/metadata.ts";

const query = z.object({
  url: z.string({ error: "url is required." }).trim().min(1, { error: "url is required." })
    .max(4096),
  callback: z.string().optional(),
});

const CALLBACK = /^[A-Za-z_$][\w$.]{0,63}$/;

/** The embed routes. */
export function embedRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const embedder = new Embedder({ allowPrivate: deps.config.embedAllowPrivate });

  async function info(c: Context<AppEnv>): Promise<EmbedInfo> {
    const q = queryParams(c, query);
    try {
      return await embedder.lookup(q.url);
    } catch (err) {
      if (err instanceof EmbedRefused) throw badRequest(err.message, "/query/url");
      if (err instanceof EmbedFailed) throw badRequest(err.message, "/query/url");
      throw err;
    }
  }

  app.get("/embed", requireUser, async (c) => c.json(await info(c)));
  app.get("/embed.html", requireUser, async (c) => {
    const html = (await info(c)).html ?? "";
    c.header("X-Content-Type-Options", "nosniff");
    // The fragment is built from escaped values; the policy makes sure it cannot run anything.
    c.header("Content-Security-Policy", "default-src 'none'; img-src http: https:; sandbox");
    return c.html(html);
  });
  app.get("/embed.jsonp", requireUser, async (c) => {
    const callback = c.req.query("callback") ?? "";
    if (!CALLBACK.test(callback)) {
      throw badRequest("callback must be a JavaScript identifier.", "/query/callback");
    }
    const body = `/**/${callback}(${JSON.stringify(await info(c))});`;
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(body, 200, { "Content-Type": "application/javascript; charset=utf-8" });
  });
  return app;
}
