/** Connection profiles: the servers an admin sets limits for, and the default one. */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { t } from "../i18n.ts";
import { useForm } from "../form.ts";
import { Check, Field, FormErrors, Panel, toErrors } from "./Field.tsx";

interface Profile {
  id?: string;
  url: string;
  is_default?: boolean;
  is_forced?: boolean;
  max_bulk_message_size?: number;
  max_message_length?: number;
}

export function Profiles() {
  const [list, setList] = useState<Profile[]>([]);
  const form = useForm({ url: "", is_default: false });
  const { setErrors } = form;
  const load = () =>
    api("listConnectionProfiles").then((r) => setList(r.profiles ?? []))
      .catch((e) => setErrors(toErrors(e)));
  useEffect(() => {
    void load();
  }, []);
  return (
    <>
      <Panel title={t("Connection profiles")}>
        {!list.length && <p class="muted">{t("No profiles yet.")}</p>}
        <ul class="user-list">
          {list.map((p) => (
            <li key={p.id ?? p.url}>
              <span class="who">
                <strong>{p.url}</strong>
                <span class="muted">
                  {[
                    p.is_default && t("default"),
                    p.is_forced && t("forced"),
                    p.max_message_length && `${p.max_message_length} ${t("characters")}`,
                  ].filter(Boolean).join(" · ")}
                </span>
              </span>
              <span class="buttons">
                <button
                  type="button"
                  class="small danger"
                  onClick={async () => {
                    await api("removeConnectionProfile", { params: { id: p.id ?? "" } }).catch((
                      e,
                    ) => setErrors(toErrors(e)));
                    await load();
                  }}
                >
                  {t("Delete")}
                </button>
              </span>
            </li>
          ))}
        </ul>
      </Panel>
      <Panel title={t("Add or change a profile")}>
        <form
          onSubmit={form.onSubmit(async (body) => {
            await api("saveConnectionProfile", { body });
            form.set("url")("");
            await load();
          })}
          noValidate
        >
          <Field
            {...form.field("url", t("Server URL"))}
            placeholder="irc://irc.libera.chat:6697"
          />
          <div class="checks">
            <Check {...form.check("is_default", t("Default for new connections"))} />
          </div>
          <FormErrors {...form.rest()} />
          <div class="actions">
            <button class="primary" type="submit">{t("Save profile")}</button>
          </div>
        </form>
      </Panel>
    </>
  );
}
