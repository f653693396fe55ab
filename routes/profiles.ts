/** Connection profiles: limits and defaults per IRC host, managed by admins. */
import { Hono } from "hono";
import { z } from "zod";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { notFound } from "../http/errors.ts";
import { requireAdmin, requireUser } from "../http/session.ts";
import { jsonBody } from "../http/validate.ts";
import { hostId } from "../irc/host_id.ts";
import { publicUrl } from "../irc/url.ts";
import type { ProfileRecord } from "../store/profiles.ts";

const profileBody = z.object({
  url: z.string({ error: "url is required." }).trim().refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === "irc:" || u.protocol === "ircs:") && u.hostname !== "";
    } catch {
      return false;
    }
  }, { error: "url must be an irc:// or ircs:// URL with a host." }),
  is_default: z.boolean().optional(),
  is_forced: z.boolean().optional(),
  max_bulk_message_size: z.number().int().min(1).max(32).optional(),
  max_message_length: z.number().int().min(32).max(2048).optional(),
  service_accounts: z.array(z.string().trim().min(1).max(64)).max(32).optional(),
  webirc_password: z.string().max(256).optional(),
});

/** A profile as the API returns it. The WEBIRC password is a secret and never leaves the server. */
export function profileJson(p: ProfileRecord) {
  return {
    id: p.id,
    url: publicUrl(p.url),
    is_default: p.isDefault,
    is_forced: p.isForced,
    max_bulk_message_size: p.maxBulkMessageSize,
    max_message_length: p.maxMessageLength,
    service_accounts: p.serviceAccounts,
    webirc_password_set: p.webircPassword !== "",
  };
}

/** Routes under /api/connection-profiles. */
export function profileRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { profiles } = deps.store;

  app.get("/connection-profiles", requireUser, async (c) => {
    return c.json({ profiles: (await profiles.list()).map(profileJson) });
  });

  app.post("/connection-profiles", requireAdmin, async (c) => {
    const body = await jsonBody(c, profileBody);
    const id = hostId(new URL(body.url).hostname);
    const old = await profiles.get(id);
    const saved = await profiles.save({
      id,
      url: body.url,
      isDefault: body.is_default ?? old?.isDefault ?? false,
      isForced: body.is_forced ?? old?.isForced ?? false,
      maxBulkMessageSize: body.max_bulk_message_size ?? old?.maxBulkMessageSize ?? 3,
      maxMessageLength: body.max_message_length ?? old?.maxMessageLength ?? 512,
      serviceAccounts: body.service_accounts ?? old?.serviceAccounts ?? ["chanserv", "nickserv"],
      webircPassword: body.webirc_password ?? old?.webircPassword ?? "",
    });
    return c.json(profileJson(saved));
  });

  app.delete("/connection-profiles/:id", requireAdmin, async (c) => {
    if (!(await profiles.remove(c.req.param("id")))) throw notFound("No such connection profile.");
    return c.json({});
  });

  return app;
}
