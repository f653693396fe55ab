/**
 * Uploaded files' contents on disk, under `<files>/<uid>/<file id>` (the rows are shared:
 * store/tables/files.ts). Contents are streamed to a temporary name and renamed when their row is
 * written, so a failed or refused upload leaves nothing behind and a reader never sees half a file.
 */
import { join } from "node:path";
import { randomId } from "../../lib/crypto.ts";
import { removeLeftover } from "../../lib/remove.ts";
import { FileTooLargeError } from "../files.ts";
import type { FileContents } from "../tables/files.ts";

async function writeAll(file: Deno.FsFile, chunk: Uint8Array): Promise<void> {
  let off = 0;
  while (off < chunk.length) off += await file.write(chunk.subarray(off));
}

/** Files' contents on disk; `dir` is `<PARLEY_HOME>/files`. */
export function sqliteFileContents(dir: string | undefined): FileContents {
  const root = () => {
    if (!dir) throw new Error("the file store has no folder");
    return dir;
  };
  const userDir = (userId: number) => join(root(), String(userId));

  return {
    async write(userId, content, maxBytes) {
      const folder = userDir(userId);
      await Deno.mkdir(folder, { recursive: true, mode: 0o700 });
      const tmp = join(folder, `.upload-${randomId(12)}`);
      const out = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
      let size = 0;
      try {
        for await (const chunk of content) {
          size += chunk.length;
          if (size > maxBytes) throw new FileTooLargeError("The file is too large.");
          await writeAll(out, chunk);
        }
        out.close();
      } catch (err) {
        try {
          out.close();
        } catch { /* why: closed already when the error came from the close above */ }
        await removeLeftover(tmp);
        throw err;
      }
      /** Where the contents are now, and whether they took the place of a file's old ones. */
      let kept: { path: string; replaced: boolean } | undefined;
      return {
        size,
        keep(_tx, id, previous) {
          // Synchronous: the row's transaction is open, and nothing else may run on its connection.
          const path = join(folder, id);
          Deno.renameSync(tmp, path);
          kept = { path, replaced: previous !== undefined };
          return Promise.resolve();
        },
        async drop() {
          // Contents renamed over a file's old ones stay (the old are gone; its row still names
          // the place); new ones are removed.
          if (!kept) await removeLeftover(tmp);
          else if (!kept.replaced) await removeLeftover(kept.path);
        },
      };
    },

    open: async (file) =>
      (await Deno.open(join(userDir(file.userId), file.id), { read: true })).readable,

    remove: (row) => removeLeftover(join(userDir(row.user_id), row.file_id)),

    removeUser: (userId) => removeLeftover(userDir(userId), { recursive: true }),
  };
}
