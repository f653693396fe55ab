/**
 * App tokens on the account page: a password per IRC client (irssi, weechat, Goguma...), made
 * and shown once, listed by name and last use, revoked one by one.
 */
import { useEffect, useState } from "preact/hooks";
import { api, type Body } from "../api.ts";
import { language, t } from "../i18n.ts";
import { Field, Panel, useFormAction } from "./Field.tsx";
import { asksCurrentPassword, CurrentPasswordDialog } from "./CurrentPasswordDialog.tsx";

interface TokenItem {
  id: string;
  name: string;
  created: string;
  last_used?: string;
}

/** The app tokens panel of the account page. */
export function AppTokens() {
  const [list, setList] = useState<TokenItem[] | null>(null);
  const [name, setName] = useState("");
  const [fresh, setFresh] = useState<{ name: string; token: string } | null>(null);
  const [error, setError] = useState("");
  // The token waiting for the current password, while the dialog asks for it.
  const [pending, setPending] = useState<Body<"createAppToken"> | null>(null);
  const { errors, busy, run } = useFormAction();
  const load = () =>
    api("listAppTokens").then((r) => setList(r.tokens), (e) => setError((e as Error).message));
  useEffect(() => void load(), []);
  const when = (ts: string) => new Date(ts).toLocaleString(language.value);

  const create = async (body: Body<"createAppToken">) => {
    const made = await api("createAppToken", { body });
    setFresh({ name: made.name, token: made.token });
    setName("");
    setPending(null);
    await load();
  };
  const make = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      try {
        await create({ name });
      } catch (err) {
        // A session opened long ago: the password first (CurrentPasswordDialog.tsx).
        if (!asksCurrentPassword(err)) throw err;
        setPending({ name });
      }
    });
  };
  const revoke = async (item: TokenItem) => {
    try {
      await api("removeAppToken", { params: { id: item.id } });
      if (fresh?.name === item.name) setFresh(null);
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <Panel title={t("App tokens")}>
      <p class="muted">
        {t("A password for one IRC client, so your account password stays out of it.")}
      </p>
      {error && <p class="error" role="alert">{error}</p>}
      {fresh && (
        <p class="saved" role="status">
          {t("Token for {name}; copy it now, it is not shown again:", { name: fresh.name })}{" "}
          <code class="app-token">{fresh.token}</code>
        </p>
      )}
      <form onSubmit={make}>
        <Field
          label={t("Client name")}
          name="name"
          value={name}
          onInput={setName}
          errors={errors}
          placeholder="irssi"
          required
        />
        <button class="primary" type="submit" disabled={busy}>{t("Make a token")}</button>
      </form>
      {pending && (
        <CurrentPasswordDialog
          why={t("Enter your current password to make an app token.")}
          action={t("Make a token")}
          confirm={(current) => create({ ...pending, current_password: current })}
          cancel={() => setPending(null)}
        />
      )}
      {list === null && !error && <p class="loading" role="status">{t("Loading…")}</p>}
      {list && (
        <ul class="user-list" aria-label={t("App tokens")}>
          {list.map((item) => (
            <li key={item.id}>
              <div class="who">
                <strong>{item.name}</strong>
                <span class="muted">
                  {[
                    t("made {time}", { time: when(item.created) }),
                    item.last_used
                      ? t("last used {time}", { time: when(item.last_used) })
                      : t("never used"),
                  ].join(" · ")}
                </span>
              </div>
              <button
                type="button"
                class="danger small"
                onClick={() => revoke(item)}
                aria-label={t("Revoke {name}", { name: item.name })}
              >
                {t("Revoke")}
              </button>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}
