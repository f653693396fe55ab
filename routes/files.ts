/** Files: upload, list, download (no login: ids are unguessable), delete. */
import { Hono } from "hono";
import { bind } from "../http/bind.ts";
import { join } from "node:path";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { badRequest, notFound } from "../http/errors.ts";
import { currentUser, requireUser } from "../http/session.ts";
import { queryParams } from "../http/validate.ts";
import { API } from "../protocol/contract/mod.ts";
import { formatMicros } from "../protocol/time.ts";
import { extension, mediaType, servedAs } from "../lib/media_types.ts";
import {
  FileQuotaError,
  type FileRecord,
  FileTooLargeError,
  fileUrl,
  UnknownCursorError,
} from "../store/files.ts";
import { readUploadForm, tooLarge } from "../files/upload.ts";

/** The upload answer's entry for one file. */
function uploadedJson(deps: AppDeps, file: FileRecord) {
  return {
    ext: extension(file.name),
    filename: file.name,
    id: file.id,
    saved: formatMicros(file.saved),
    uid: String(file.userId),
    url: fileUrl(deps.config.baseUrl, file),
  };
}

/** A Content-Disposition value that survives any file name (`filename*` only when needed). */
function disposition(kind: "attachment", name: string): string {
  const ascii = Array.from(
    name,
    (ch) => (ch >= " " && ch <= "~" && ch !== '"' && ch !== "\\") ? ch : "_",
  )
    .join("");
  const plain = `${kind}; filename="${ascii}"`;
  return ascii === name ? plain : `${plain}; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** An id a client may choose for its file: safe as a file name, as Convos's keys are. */
const CHOSEN_ID = /^[\w-]{1,64}$/;

/** Phones name every photo `image.jpg`; like Convos, give it a name that tells uploads apart. */
export function uploadName(name: string): string {
  return /^image\.jpe?g$/i.test(name) ? `IMG_${Math.floor(Date.now() / 1000) % 10000}.jpg` : name;
}

/** The first bytes of a spooled upload, to tell text from binary when nothing else says. */
export async function head(path: string): Promise<Uint8Array> {
  const file = await Deno.open(path, { read: true });
  try {
    const buf = new Uint8Array(1024);
    const n = await file.read(buf);
    return buf.subarray(0, n ?? 0);
  } finally {
    file.close();
  }
}

/** Routes under /api/files. */
export function filesRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { files } = deps.store;
  const max = deps.config.maxUploadSize;
  /** What the user's files take, as the listing's `usage` says it. */
  const usageOf = async (userId: number) => {
    const { bytes, max: most } = await files.usage(userId);
    return { bytes, max_bytes: most };
  };

  bind(app, "uploadFile", requireUser, async (c) => {
    const user = currentUser(c);
    // Streamed: the limit is counted while the body arrives, never after buffering it whole.
    const form = await readUploadForm(
      c.req.raw,
      join(deps.config.home, "files", String(user.id)),
      max,
    );
    try {
      const name = uploadName(form.name.slice(0, 255));
      const id = form.fields.id;
      if (id && !CHOSEN_ID.test(id)) {
        throw badRequest("An id is 1 to 64 letters, digits, _ or -.", "/body/id");
      }
      const writeOnly = /^(1|true|on|yes)$/i.test(form.fields.write_only ?? "");
      const saved = await files.save(
        {
          userId: user.id,
          name,
          type: form.text
            ? "text/plain"
            : mediaType(form.claimedType ?? "", name, await head(form.spool.path)),
          writeOnly,
          replace: id ? id : undefined,
        },
        await form.spool.readable(),
        max,
      );
      return c.json({ files: [uploadedJson(deps, saved)] });
    } catch (err) {
      if (err instanceof FileTooLargeError) throw tooLarge(max);
      if (err instanceof FileQuotaError) throw badRequest(err.message, "/file");
      throw err;
    } finally {
      await form.spool.discard();
    }
  });

  bind(app, "getFiles", requireUser, async (c) => {
    const user = currentUser(c);
    const query = queryParams(c, API.getFiles.query);
    try {
      const [page, usage] = await Promise.all([
        files.page(user.id, query.after, query.limit),
        usageOf(user.id),
      ]);
      return c.json({
        files: page.files.map((f) => ({
          id: f.id,
          name: f.name,
          saved: formatMicros(f.saved),
          size: f.size,
        })),
        ...(page.after !== undefined ? { after: page.after } : {}),
        ...(page.prev !== undefined ? { prev: page.prev } : {}),
        ...(page.next !== undefined ? { next: page.next } : {}),
        usage,
      });
    } catch (err) {
      // As Convos: a cursor that names no file of the user is an empty page, not an error.
      if (err instanceof UnknownCursorError) {
        return c.json({ files: [], usage: await usageOf(user.id) });
      }
      throw err;
    }
  });

  // The id may carry the file's extension (`/api/files/1/<id>.jpg`), as Convos's file URLs do.
  bind(app, "getFile", async (c) => {
    const uid = Number(c.req.param("uid"));
    const fid = c.req.param("fid").replace(/\.[A-Za-z0-9]{1,10}$/, "");
    const file = Number.isSafeInteger(uid) ? await files.find(uid, fid) : undefined;
    if (!file || file.writeOnly) throw notFound();
    const { type, inline } = servedAs(file.type);
    const headers: Record<string, string> = {
      "Content-Type": type.startsWith("text/") ? `${type};charset=UTF-8` : type,
      "Content-Length": String(file.size),
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "max-age=86400",
    };
    // Shown inline without a disposition, as Convos does; downloads carry the name.
    if (!inline) headers["Content-Disposition"] = disposition("attachment", file.name);
    // Should a browser render a download anyway, it runs nothing in Parley's origin.
    if (!inline) headers["Content-Security-Policy"] = "sandbox";
    let body: ReadableStream<Uint8Array> | null = null;
    if (c.req.method !== "HEAD") {
      try {
        body = await files.open(file);
      } catch (err) {
        // Contents removed behind Parley's back: as good as unknown.
        if (err instanceof Deno.errors.NotFound) throw notFound();
        throw err;
      }
    }
    return new Response(body, { status: 200, headers });
  });

  bind(app, "deleteFiles", requireUser, async (c) => {
    const user = currentUser(c);
    if (c.req.param("uid") !== String(user.id)) return c.json({ deleted: 0 });
    const ids = c.req.param("fid").split(",").map((s) => s.trim()).filter(Boolean);
    return c.json({ deleted: await files.remove(user.id, ids) });
  });

  return app;
}

/** The hook that removes a user's files when the user is deleted. */
export function filesUserDeleted(deps: Pick<AppDeps, "store">) {
  return (userId: number) => deps.store.files.removeUser(userId);
}
