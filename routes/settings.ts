/** Server settings, for admins, with the disk usage of the data folder. */
import { Hono } from "hono";
import { statfs } from "node:fs/promises";
import { z } from "zod";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { requireAdmin } from "../http/session.ts";
import { jsonBody } from "../http/validate.ts";

const uri = (schemes: string[]) =>
  z.string().trim().refine((v) => {
    try {
      return schemes.includes(new URL(v).protocol.slice(0, -1));
    } catch {
      return false;
    }
  }, { error: `Must be a URL starting with ${schemes.map((s) => s + "://").join(" or ")}.` });

const settingsBody = z.object({
  contact: z.string().trim().min(3, { error: "Contact must be at least 3 characters." }).max(500)
    .optional(),
  default_connection: uri(["irc", "ircs"]).optional(),
  forced_connection: z.boolean().optional(),
  open_to_public: z.boolean().optional(),
  organization_name: z.string().trim().max(200).optional(),
  organization_url: z.union([z.literal(""), uri(["http", "https"])]).optional(),
  video_service: z.union([z.literal(""), uri(["http", "https"])]).optional(),
  max_connections_per_user: z.number().int().min(1).max(10_000).optional(),
  max_conversations_per_connection: z.number().int().min(1).max(1_000_000).optional(),
  irc_allow_private: z.boolean().optional(),
});

/** Block and inode counts of the file system that holds the data folder. */
async function diskUsage(home: string) {
  const s = await statfs(home);
  return {
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
    return c.json(await current());
  });
  return app;
}
