/** The server settings an admin edits, and the disk they fill. */
import { useEffect, useState } from "preact/hooks";
import { api, type Reply } from "../api.ts";
import { t } from "../i18n.ts";
import type { ApiErrorItem } from "../types.ts";
import { fail, useForm } from "../form.ts";
import { formatSize } from "../util.ts";
import { Check, Field, FormErrors, Panel, Saved, toErrors } from "./Field.tsx";

type Settings = Reply<"getSettings">;

export function ServerSettings() {
  const [s, setS] = useState<Settings | null>(null);
  const [errors, setErrors] = useState<ApiErrorItem[]>([]);
  useEffect(() => {
    api("getSettings").then(setS).catch((e) => setErrors(toErrors(e)));
  }, []);
  if (!s) return <FormErrors errors={errors} fields={[]} />;
  return <SettingsForm initial={s} />;
}

/** Bytes as the megabytes the files bound is typed in. */
const megabytes = (bytes: number | undefined) => String((bytes ?? 0) / 1e6);

function SettingsForm(p: { initial: Settings }) {
  const form = useForm(p.initial);
  const [saved, setSaved] = useState(false);
  // Typed in megabytes, kept by the server in bytes: the text stays as typed until the save.
  const [filesMb, setFilesMb] = useState(megabytes(p.initial.max_file_bytes_per_user));
  const s = form.values;
  const save = form.onSubmit(async (v) => {
    setSaved(false);
    const { disk_usage: _d, message_retention_locked: locked, ...body } = v;
    // Set by the operator, the retention is not the admin's to send.
    if (locked) delete body.message_retention;
    const mb = Number(filesMb);
    if (!filesMb.trim() || !(mb >= 0)) {
      fail("max_file_bytes_per_user", t("A number of megabytes; 0 for no limit."));
    }
    body.max_file_bytes_per_user = Math.round(mb * 1e6);
    const next = await api("updateSettings", { body });
    form.replace(next);
    setFilesMb(megabytes(next.max_file_bytes_per_user));
    setSaved(true);
  });
  return (
    <>
      <Panel title={t("Server settings")}>
        <form onSubmit={save} noValidate>
          <Field {...form.field("organization_name", t("Organization name"))} />
          <Field {...form.field("organization_url", t("Organization URL"))} />
          <Field {...form.field("contact", t("Contact"))} />
          <Field
            {...form.field("default_connection", t("Default connection"))}
            placeholder="irc://irc.libera.chat:6697"
          />
          <Field {...form.field("video_service", t("Video service"))} />
          <Field
            {...form.field("message_retention", t("Message retention"))}
            placeholder="365d"
            readOnly={!!s.message_retention_locked}
            hint={s.message_retention_locked
              ? t("Set by the operator (PARLEY_MESSAGE_RETENTION).")
              : t(
                "Messages older than this are deleted: 365d, 12w or 1y. Empty or 0 keeps everything.",
              )}
          />
          <Field
            {...form.field("max_file_bytes_per_user", t("Files per user (MB)"))}
            value={filesMb}
            onInput={setFilesMb}
            hint={t("The most one user's uploads and pastes may take together; 0 for no limit.")}
          />
          <div class="checks">
            <Check
              {...form.check(
                "new_user_connection",
                t("Give every new user the default connection"),
              )}
              checked={s.new_user_connection !== false}
            />
            <Check {...form.check("open_to_public", t("Anyone may register"))} />
            <Check
              {...form.check("forced_connection", t("Users may only use the default connection"))}
            />
            <Check
              {...form.check("irc_allow_private", t("Users may connect to private addresses"))}
            />
            <p class="muted">
              {t(
                "Loopback, LAN and link-local IRC servers: admins and the default connection always may; PARLEY_IRC_ALLOW_PRIVATE=1 allows it for everyone too.",
              )}
            </p>
          </div>
          <FormErrors {...form.rest()} />
          <div class="actions">
            <button class="primary" type="submit">{t("Save")}</button>
            <Saved show={saved} />
          </div>
        </form>
      </Panel>
      <DiskUsage usage={s.disk_usage} />
    </>
  );
}

function DiskUsage(p: { usage: Settings["disk_usage"] }) {
  if (!p.usage) return null;
  const d = { blocks_used: 0, blocks_total: 0, blocks_free: 0, block_size: 0, ...p.usage };
  const used = d.blocks_total ? d.blocks_used / d.blocks_total : 0;
  return (
    <Panel title={t("Disk usage")}>
      <div
        class="meter"
        role="meter"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(used * 100)}
        aria-label={t("Disk usage")}
      >
        <span style={{ width: `${Math.round(used * 100)}%` }} />
      </div>
      <p class="muted">
        {t("{used} used of {total} ({free} free)", {
          used: formatSize(d.blocks_used * d.block_size),
          total: formatSize(d.blocks_total * d.block_size),
          free: formatSize(d.blocks_free * d.block_size),
        })}
      </p>
    </Panel>
  );
}
