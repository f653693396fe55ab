/** The user's uploaded files: list, open, delete, upload. */
import { useEffect, useState } from "preact/hooks";
import { api, type Reply, seg } from "../api.ts";
import { language, t } from "../i18n.ts";
import { user } from "../state.ts";
import { uploadFile } from "../upload.ts";
import { TopBar } from "./ChatView.tsx";
import { formatSize } from "../../../protocol/size.ts";
import { UsageMeter } from "./UsageMeter.tsx";
import { at } from "../base.ts";

interface FileRecord {
  id: string;
  name: string;
  saved: string;
  size: number;
}

type Usage = NonNullable<Reply<"getFiles">["usage"]>;

/** What the user's files take, against the server's bound when there is one. */
function FileUsage({ usage }: { usage: Usage }) {
  const { bytes, max_bytes: max } = usage;
  if (!max) return <p class="muted">{t("{used} stored", { used: formatSize(bytes) })}</p>;
  return (
    <div class="file-usage">
      <UsageMeter
        used={bytes}
        total={max}
        free={Math.max(0, max - bytes)}
        label={t("Your files")}
      />
    </div>
  );
}

/** The files screen. */
export function Files() {
  const [files, setFiles] = useState<FileRecord[] | null>(null);
  const [error, setError] = useState("");
  const [after, setAfter] = useState<string | undefined>();
  const [next, setNext] = useState<string | undefined>();
  const [usage, setUsage] = useState<Usage | undefined>();
  const load = (a?: string) =>
    api("getFiles", { query: { after: a } })
      .then((r) => {
        const files = r.files ?? [];
        setFiles(files);
        setUsage(r.usage);
        setNext(r.next ? r.after ?? files[files.length - 1]?.id : undefined);
      })
      .catch((e) => setError((e as Error).message));
  useEffect(() => {
    void load(after);
  }, [after]);
  const uid = user.value?.uid ?? "";
  const remove = async (f: FileRecord) => {
    if (!confirm(t("Delete {name}?", { name: f.name }))) return;
    try {
      await api("deleteFiles", { params: { uid, fid: f.id } });
      // Read again: the usage changed, and the page may take a file from the next.
      await load(after);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <main class="page">
      <TopBar
        title={t("Files")}
        actions={
          <label class="button primary upload">
            {t("Upload")}
            <input
              type="file"
              class="visually-hidden"
              onChange={async (e) => {
                const input = e.currentTarget as HTMLInputElement;
                try {
                  for (const f of Array.from(input.files ?? [])) await uploadFile(f);
                  await load();
                } catch (err) {
                  setError((err as Error).message);
                }
                input.value = "";
              }}
            />
          </label>
        }
      />
      <div class="page-body">
        {error && <p class="error" role="alert">{error}</p>}
        {usage && <FileUsage usage={usage} />}
        {files === null && !error && <p class="loading" role="status">{t("Loading…")}</p>}
        {files && !files.length && (
          <p class="empty">{t("No files yet. Upload one here or drop it on a conversation.")}</p>
        )}
        {files && files.length > 0 && (
          <ul class="file-list">
            {files.map((f) => (
              <li key={f.id}>
                <a href={at(`/api/files/${seg(uid)}/${seg(f.id)}`)} target="_blank" rel="noopener">
                  {f.name}
                </a>
                <span class="muted">
                  {formatSize(f.size)} · {new Date(f.saved).toLocaleString(language.value)}
                </span>
                <button
                  type="button"
                  class="danger small"
                  onClick={() => remove(f)}
                  aria-label={t("Delete {name}", { name: f.name })}
                >
                  {t("Delete")}
                </button>
              </li>
            ))}
          </ul>
        )}
        {next && <button type="button" onClick={() => setAfter(next)}>{t("Older files")}</button>}
      </div>
    </main>
  );
}
