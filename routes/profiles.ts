/** Connection profiles: limits and defaults per IRC host, managed by admins. */
import { Hono } from "hono";
import { bind } from "../http/bind.ts";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { badRequest, notFound } from "../http/errors.ts";
import { adminOnly, currentUser, requireUser } from "../http/session.ts";
import { jsonBody } from "../http/validate.ts";
import { bodyOf } from "../protocol/contract/mod.ts";
import { hostId } from "../irc/host_id.ts";
import { publicUrl } from "../irc/url.ts";
import type { ProfileRecord } from "../store/profiles.ts";
import type { ServerSettings } from "../store/settings.ts";

const hostOf = (url: string) => new URL(url).hostname.toLowerCase();

/**
 * A profile as the API returns it. `is_default` and `is_forced` come from the server settings (the
 * profile of the default connection's host is the default). The WEBIRC password is a secret and
 * never leaves the server; admins see whether one is set.
 */
function profileJson(p: ProfileRecord, settings: ServerSettings, admin: boolean) {
  const isDefault = hostOf(p.url) === hostOf(settings.default_connection);
  return {
    id: p.id,
    url: publicUrl(p.url),
    is_default: isDefault,
    is_forced: isDefault && settings.forced_connection,
    max_bulk_message_size: p.maxBulkMessageSize,
    max_message_length: p.maxMessageLength,
    service_accounts: p.serviceAccounts,
    skip_queue: p.skipQueue,
    ...(admin ? { webirc_password_set: p.webircPassword !== "" } : {}),
  };
}

/**
 * The default connection is itself a profile, as in Convos: saved with the defaults the first time
 * it is looked for, so that it stays (and can be deleted) once another profile becomes the default.
 */
export async function ensureDefaultProfile(deps: AppDeps): Promise<ServerSettings> {
  const settings = await deps.store.settings.current(deps.config.defaultConnection);
  let host: string;
  try {
    host = hostOf(settings.default_connection);
  } catch {
    return settings; // an unusable setting has no profile
  }
  const id = hostId(host);
  if (host && !(await deps.store.profiles.get(id))) {
    await deps.store.profiles.save({
      id,
      url: settings.default_connection,
      isDefault: true,
      isForced: false,
      maxBulkMessageSize: 3,
      maxMessageLength: 512,
      serviceAccounts: ["chanserv", "nickserv"],
      skipQueue: host === "localhost",
      webircPassword: "",
    });
  }
  return settings;
}

/** Routes under /api/connection-profiles. */
export function profileRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { profiles } = deps.store;

  bind(app, "listConnectionProfiles", requireUser, async (c) => {
    const settings = await ensureDefaultProfile(deps);
    const admin = currentUser(c).roles.includes("admin");
    return c.json({
      profiles: (await profiles.list()).map((p) => profileJson(p, settings, admin)),
    });
  });

  bind(
    app,
    "saveConnectionProfile",
    adminOnly("Only admins can save connection profiles."),
    async (c) => {
      const body = await jsonBody(c, bodyOf("saveConnectionProfile"));
      await ensureDefaultProfile(deps);
      const host = hostOf(body.url);
      const id = hostId(host);
      const old = await profiles.get(id);
      const saved = await profiles.save({
        id,
        url: body.url,
        isDefault: body.is_default ?? old?.isDefault ?? false,
        isForced: body.is_forced ?? old?.isForced ?? false,
        maxBulkMessageSize: body.max_bulk_message_size ?? old?.maxBulkMessageSize ?? 3,
        maxMessageLength: body.max_message_length ?? old?.maxMessageLength ?? 512,
        serviceAccounts: body.service_accounts ?? old?.serviceAccounts ?? ["chanserv", "nickserv"],
        skipQueue: body.skip_queue ?? old?.skipQueue ?? host === "localhost",
        webircPassword: body.webirc_password === null
          ? ""
          : body.webirc_password || old?.webircPassword || "",
      });
      // Saving a profile as the default makes its URL the default connection (and is_forced the
      // forced_connection setting), as Convos does.
      if (body.is_default) {
        await deps.store.settings.set({
          default_connection: body.url,
          forced_connection: body.is_forced ?? false,
        });
      }
      const settings = await deps.store.settings.current(deps.config.defaultConnection);
      return c.json(profileJson(saved, settings, true));
    },
  );

  bind(
    app,
    "removeConnectionProfile",
    adminOnly("Only admins can delete connection profiles."),
    async (c) => {
      const settings = await ensureDefaultProfile(deps);
      const profile = await profiles.get(c.req.param("id"));
      if (!profile) throw notFound("No such connection profile.");
      if (hostOf(profile.url) === hostOf(settings.default_connection)) {
        throw badRequest("You cannot delete the default connection.");
      }
      await profiles.remove(profile.id);
      return c.json({ message: "Deleted." });
    },
  );

  return app;
}
