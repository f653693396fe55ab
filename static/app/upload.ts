/** Uploads a file through `POST /api/files` and returns its public URL. */
import { api } from "./api.ts";

/** Uploads one file; resolves with the URL to share. */
export async function uploadFile(file: File): Promise<string> {
  const form = new FormData();
  form.append("file", file, file.name || "pasted.png");
  const res = await api("uploadFile", { body: form });
  return res.files![0].url;
}
