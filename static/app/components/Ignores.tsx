/** The people the user ignores, on every device: a list with a remove button, and an add box. */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { t } from "../i18n.ts";
import { Field, FormErrors, Panel, useFormAction } from "./Field.tsx";

/** The ignore panel of the account page. */
export function Ignores() {
  const [list, setList] = useState<string[] | null>(null);
  const [typed, setTyped] = useState("");
  const [error, setError] = useState("");
  const { errors, busy, run } = useFormAction();
  useEffect(() => {
    void api("listIgnores").then(
      (r) => setList(r.ignores),
      (e) => setError((e as Error).message),
    );
  }, []);

  const remove = (mask: string) =>
    run(async () => setList((await api("removeIgnore", { body: { mask } })).ignores));

  return (
    <Panel title={t("Ignored people")}>
      <p class="muted">
        {t("Their messages are not shown, counted or notified, on any device.")}
      </p>
      {error && <p class="error" role="alert">{error}</p>}
      <FormErrors errors={errors} fields={["mask"]} />
      {list?.length === 0 && <p>{t("Nobody is ignored.")}</p>}
      {list && list.length > 0 && (
        <ul class="user-list" aria-label={t("Ignored people")}>
          {list.map((mask) => (
            <li key={mask}>
              <div class="who">
                <strong>{mask}</strong>
              </div>
              <button
                type="button"
                class="small"
                onClick={() => remove(mask)}
                aria-label={t("Stop ignoring {mask}", { mask })}
              >
                {t("Remove")}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            setList((await api("addIgnore", { body: { mask: typed.trim() } })).ignores);
            setTyped("");
          });
        }}
      >
        <Field
          label={t("Ignore a nick or mask")}
          name="mask"
          value={typed}
          onInput={setTyped}
          errors={errors}
          hint={t("A nick, or nick!user@host with * as a wildcard.")}
        />
        <div class="actions">
          <button type="submit" disabled={busy || !typed.trim()}>{t("Ignore")}</button>
        </div>
      </form>
    </Panel>
  );
}
