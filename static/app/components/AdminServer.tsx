/** The server settings an admin edits, and the disk they fill. */
import { useEffect, useState } from "preact/hooks";
import { api, type Reply } from "../api.ts";
import { t } from "../i18n.ts";
import type { ApiErrorItem } from "../types.ts";
import { fail, useForm } from "../form.ts";
import { UsageMeter } from "./UsageMeter.tsx";
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

/** The settings typed as numbers: each in units of `scale` (the files bound in megabytes). */
const NUMBERS = {
  max_file_bytes_per_user: { scale: 1e6, least: 0 },
  max_connections_per_user: { scale: 1, least: 1 },
  max_conversations_per_connection: { scale: 1, least: 1 },
};
type NumberKey = keyof typeof NUMBERS;
const KEYS = Object.keys(NUMBERS) as NumberKey[];

/** Each number as the text it is typed as. */
function numberTexts(s: Settings): Record<NumberKey, string> {
  return Object.fromEntries(
    KEYS.map((k) => [k, String((s[k] ?? 0) / NUMBERS[k].scale)]),
  ) as Record<NumberKey, string>;
}

function SettingsForm(p: { initial: Settings }) {
  const form = useForm(p.initial);
  const [saved, setSaved] = useState(false);
  // The numbers stay as typed until the save, which reads them (and says what is not one).
  const [numbers, setNumbers] = useState(numberTexts(p.initial));
  const s = form.values;
  const save = form.onSubmit(async (v) => {
    setSaved(false);
    const { disk_usage: _d, message_retention_locked: locked, ...body } = v;
    // Set by the operator, the retention is not the admin's to send.
    if (locked) delete body.message_retention;
    for (const k of KEYS) {
      const { scale, least } = NUMBERS[k];
      const n = Number(numbers[k]);
      if (!numbers[k].trim() || !(n >= least) || (scale === 1 && !Number.isInteger(n))) {
        fail(
          k,
          scale === 1
            ? t("A whole number, at least 1.")
            : t("A number of megabytes; 0 for no limit."),
        );
      }
      body[k] = Math.round(n * scale);
    }
    const next = await api("updateSettings", { body });
    form.replace(next);
    setNumbers(numberTexts(next));
    setSaved(true);
  });
  /** Props for the Field of a number typed as text. */
  const number = (k: NumberKey, label: string) => ({
    ...form.field(k, label),
    value: numbers[k],
    onInput: (text: string) => setNumbers({ ...numbers, [k]: text }),
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
            {...number("max_file_bytes_per_user", t("Files per user (MB)"))}
            hint={t("The most one user's uploads and pastes may take together; 0 for no limit.")}
          />
          <Field {...number("max_connections_per_user", t("Connections per user"))} />
          <Field
            {...number("max_conversations_per_connection", t("Conversations per connection"))}
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
  return (
    <Panel title={t("Disk usage")}>
      <UsageMeter
        used={d.blocks_used * d.block_size}
        total={d.blocks_total * d.block_size}
        free={d.blocks_free * d.block_size}
        label={t("Disk usage")}
      />
    </Panel>
  );
}
