/**
 * Uploads files through `POST /api/files` and returns the links to share. In the after-paint
 * chunk (and the Files screen's): the first paint needs none of it.
 */
import { api } from "./api.ts";
import { t } from "./i18n.ts";
import { showToast } from "./state.ts";

/**
 * Uploads one file; resolves with the link to share: the file's URL with its name after it
 * (`…/file/1/<id>/notes.txt`), so whoever reads the line sees what it is before opening it.
 */
export async function uploadFile(file: File): Promise<string> {
  const form = new FormData();
  form.append("file", file, file.name || "pasted.png");
  const res = await api("uploadFile", { body: form });
  const saved = res.files![0];
  return saved.filename ? `${saved.url}/${encodeURIComponent(saved.filename)}` : saved.url;
}

/** Uploads `files` one by one, saying how each went, and gives each link to `put`. */
export async function uploadFiles(files: FileList | File[] | null, put: (link: string) => void) {
  for (const f of Array.from(files ?? [])) {
    try {
      showToast(t("Uploading {name}…", { name: f.name || "image" }));
      put(await uploadFile(f));
      showToast(t("Uploaded."));
    } catch (e) {
      showToast(t("Upload failed: {error}", { error: (e as Error).message }));
    }
  }
}
