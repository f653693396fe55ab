/** Server settings, for admins, with the disk usage of the data folder. */
import { Hono } from "hono";
import { statfs } from "node:fs/promises";
import { z } from "zod";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { requireAdmin } from "../http/session.ts";
import { jsonBody } from "../http/validate.ts";
import { ensureDefaultProfile } from "./profiles.ts";

/** A URL with one of `schemes` and a host; `error` is Convos's wording for the field. */
const uri = (schemes: string[], error: string) =>
  z.string().trim().refine((v) => {
    try {
      const url = new URL(v);
      return schemes.includes(url.protocol.slice(0, -1)) && url.hostname !== "";
    } catch {
      return false;
    }
  }, { error });
const HTTP = ["http", "https"];

/** updateSettings's body. */
export const settingsBody = z.object({
  contact: z.string().trim().min(3, { error: "Contact must be at least 3 characters." }).max(500)
    .optional(),
  default_connection: uri(["irc", "ircs"], "Connection URL require a scheme and host.").optional(),
  forced_connection: z.boolean().optional(),
  open_to_public: z.boolean().optional(),
  organization_name: z.string().trim().max(200).optional(),
  organization_url: z.union([
    z.literal(""),
    uri(HTTP, "Organization URL require a scheme and host."),
  ]).optional(),
  video_service: z.union([z.literal(""), uri(HTTP, "Video service URL require a scheme and host.")])
    .optional(),
  max_connections_per_user: z.number().int().min(1).max(10_000).optional(),
  max_conversations_per_connection: z.number().int().min(1).max(1_000_000).optional(),
  irc_allow_private: z.boolean().optional(),
});

/**
 * The device of the file system holding `path`, as `df` names it: the source of the longest mount
 * point above it in /proc/self/mounts, else the device number.
 */
async function deviceOf(path: string): Promise<string> {
  const real = await Deno.realPath(path);
  try {
    let best = { point: "", source: "" };
    for (const line of (await Deno.readTextFile("/proc/self/mounts")).split("\n")) {
      const [source, rawPoint] = line.split(" ");
      if (!source || !rawPoint) continue;
      // Spaces and other bytes in mount points are written as octal escapes (\040).
      const point = rawPoint.replace(
        /\\([0-7]{3})/g,
        (_, o) => String.fromCharCode(parseInt(o, 8)),
      );
      const inside = real === point || real.startsWith(point.endsWith("/") ? point : point + "/");
      if (inside && point.length >= best.point.length) best = { point, source };
    }
    if (best.source) return best.source;
  } catch { /* no /proc (not Linux): the device number below */ }
  return String((await Deno.stat(real)).dev);
}

/** Block and inode counts of the file system that holds the data folder. */
async function diskUsage(home: string) {
  const s = await statfs(home);
  return {
    dev: await deviceOf(home),
    block_size: s.bsize,
    blocks_total: s.blocks,
    blocks_free: s.bavail,
    blocks_used: s.blocks - s.bfree,
    inodes_total: s.files,
    inodes_free: s.ffree,
    inodes_used: s.files - s.ffree,
  };
}

/** Routes under /api/settings. */
export function settingsRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const current = async () => ({
    ...(await deps.store.settings.current(deps.config.defaultConnection)),
    disk_usage: await diskUsage(deps.config.home),
  });
  app.get("/settings", requireAdmin, async (c) => c.json(await current()));
  app.post("/settings", requireAdmin, async (c) => {
    await deps.store.settings.set(await jsonBody(c, settingsBody));
    await ensureDefaultProfile(deps);
    return c.json(await current());
  });
  return app;
}
