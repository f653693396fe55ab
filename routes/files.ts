/** Files: upload, list, download (no login: the ids are unguessable) and delete. */
import { Hono } from "hono";
import { z } from "zod";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { badRequest, notFound } from "../http/errors.ts";
import { currentUser, requireUser } from "../http/session.ts";
import { queryParams } from "../http/validate.ts";
import { queryLimit } from "../http/schemas.ts";
import { formatMicros } from "../lib/time.ts";
import { readUploadForm } from "../files/upload.ts";
import { commitUpload, deleteFiles, fileUrl } from "../files/service.ts";
import { filePath } from "../files/disk.ts";
import { extension, servesInline } from "../files/types.ts";
import type { FileRecord } from "../store/files.ts";

const listQuery = z.object({
  after: z.string().max(100).optional(),
  limit: queryLimit(60, 60),
});

const ID = /^[\w-]{1,64}$/;

/** `Content-Disposition` with an ASCII fallback and the UTF-8 name. */
function disposition(kind: "inline" | "attachment", name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** The file routes. */
export function filesRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const { store, config } = deps;

  app.post("/files", requireUser, async (c) => {
    const user = currentUser(c);
    const form = await readUploadForm(c.req.raw, config.home, user.id, config.maxUploadSize);
    try {
      const id = form.fields.id || undefined;
      if (id !== undefined && (!ID.test(id) || !(await store.files.get(user.id, id)))) {
        throw notFound("Unknown file id.");
      }
      const wo = form.fields.write_only ?? "";
      if (!/^(|true|false|1|0)$/.test(wo)) {
        throw badRequest("write_only must be true or false.", "/body/write_only");
      }
      const file = await commitUpload(deps, user.id, form.file, {
        id,
        name: form.name,
        claimedType: form.claimedType,
        writeOnly: wo === "true" || wo === "1",
      });
      return c.json({
        files: [{
          ext: extension(file.name),
          filename: file.name,
          id: file.id,
          saved: formatMicros(file.saved),
          uid: String(user.id),
          url: fileUrl(config, file),
        }],
      });
    } catch (err) {
      await form.file.discard();
      throw err;
    }
  });

  app.get("/files", requireUser, async (c) => {
    const user = currentUser(c);
    const q = queryParams(c, listQuery);
    // "", "after" and "prev" start at the newest file; any other value is a file id.
    let cursor: FileRecord | undefined;
    if (q.after && q.after !== "after" && q.after !== "prev") {
      cursor = ID.test(q.after) ? await store.files.get(user.id, q.after) : undefined;
      if (!cursor) throw badRequest("Unknown file id.", "/query/after");
    }
    const rows = await store.files.list(user.id, cursor?.seq, q.limit + 1);
    const page = rows.slice(0, q.limit);
    const out: Record<string, unknown> = {
      files: page.map((f) => ({
        id: f.id,
        name: f.name,
        saved: formatMicros(f.saved),
        size: f.size,
      })),
      after: cursor ? cursor.id : "after",
    };
    if (cursor) {
      // The previous page ends with the cursor; it starts after the file `limit` places newer.
      const newer = await store.files.listNewer(user.id, cursor.seq, q.limit);
      out.prev = newer.length === q.limit ? newer[q.limit - 1].id : "after";
    }
    if (rows.length > q.limit) out.next = page[page.length - 1].id;
    return c.json(out);
  });

  app.get("/files/:uid/:fid", async (c) => {
    const uid = c.req.param("uid");
    const fid = c.req.param("fid");
    if (!/^\d{1,15}$/.test(uid) || !ID.test(fid)) throw notFound();
    const file = await store.files.get(Number(uid), fid);
    if (!file || file.writeOnly) throw notFound();
    let handle: Deno.FsFile;
    try {
      handle = await Deno.open(filePath(config.home, file.userId, file.id), { read: true });
    } catch {
      throw notFound();
    }
    const inline = servesInline(file.contentType);
    const headers: Record<string, string> = {
      "Content-Type": file.contentType,
      "Content-Length": String(file.size),
      "X-Content-Type-Options": "nosniff",
      "Content-Disposition": disposition(inline ? "inline" : "attachment", file.name),
      "Cache-Control": "private, max-age=86400",
    };
    // Anything that could run script is a download, and sandboxed even if a browser renders it.
    if (!inline) headers["Content-Security-Policy"] = "sandbox";
    return new Response(handle.readable, { status: 200, headers });
  });

  app.delete("/files/:uid/:fid", requireUser, async (c) => {
    const user = currentUser(c);
    if (c.req.param("uid") !== String(user.id)) return c.json({ deleted: 0 });
    const ids = c.req.param("fid").split(",").map((s) => s.trim()).filter(Boolean).slice(0, 1000);
    return c.json({ deleted: await deleteFiles(deps, user.id, ids) });
  });

  return app;
}
