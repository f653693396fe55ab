/** Server settings, for admins, with the disk usage of the data folder. */
import { Hono } from "hono";
import { bind } from "../http/bind.ts";
import { statfs } from "node:fs/promises";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { requireAdmin } from "../http/session.ts";
import { jsonBody } from "../http/validate.ts";
import { bodyOf } from "../protocol/contract/mod.ts";
import { ensureDefaultProfile } from "./profiles.ts";
import { badRequest } from "../http/errors.ts";
import { retentionDays } from "../protocol/retention.ts";

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
  } catch { /* why: no /proc (not Linux): the device number below names the disk */ }
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
  // PARLEY_MESSAGE_RETENTION, when set, decides; the screen shows it and cannot change it.
  const fixed = deps.config.messageRetentionDays;
  const fixedText = fixed === undefined ? undefined : fixed ? `${fixed}d` : "0";
  const current = async () => {
    const settings = await deps.store.settings.current(deps.config.defaultConnection);
    return {
      ...settings,
      message_retention: fixedText ?? settings.message_retention,
      message_retention_locked: fixed !== undefined,
      disk_usage: await diskUsage(deps.config.home),
    };
  };
  bind(app, "getSettings", requireAdmin, async (c) => c.json(await current()));
  bind(app, "updateSettings", requireAdmin, async (c) => {
    const { message_retention_locked: _l, disk_usage: _d, ...patch } = await jsonBody(
      c,
      bodyOf("updateSettings"),
    );
    if (fixed !== undefined && patch.message_retention !== undefined) {
      if (retentionDays(patch.message_retention) !== fixed) {
        throw badRequest(
          "Message retention is set by PARLEY_MESSAGE_RETENTION; change it there.",
          "/body/message_retention",
        );
      }
      delete patch.message_retention;
    }
    await deps.store.settings.set(patch);
    await ensureDefaultProfile(deps);
    return c.json(await current());
  });
  return app;
}
