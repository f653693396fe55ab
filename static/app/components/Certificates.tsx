/**
 * Client certificates on the account page: the certificates that log the user in to the IRC
 * listener (SASL EXTERNAL), pasted as fingerprints (a web page cannot read the browser's own), listed,
 * removed one by one.
 */
import { useEffect, useState } from "preact/hooks";
import { api, type Body } from "../api.ts";
import { language, t } from "../i18n.ts";
import { Field, Panel, useFormAction } from "./Field.tsx";
import { asksCurrentPassword, CurrentPasswordDialog } from "./CurrentPasswordDialog.tsx";

interface CertItem {
  fingerprint: string;
  created: string;
}

/** The client certificates panel of the account page. */
export function Certificates() {
  const [list, setList] = useState<CertItem[] | null>(null);
  const [fingerprint, setFingerprint] = useState("");
  const [error, setError] = useState("");
  // The certificate waiting for the current password, while the dialog asks for it.
  const [pending, setPending] = useState<Body<"addCertfp"> | null>(null);
  const { errors, busy, run } = useFormAction();
  const load = () =>
    api("listCertfps").then((r) => setList(r.certfps), (e) => setError((e as Error).message));
  useEffect(() => void load(), []);

  const send = async (body: Body<"addCertfp">) => {
    await api("addCertfp", { body });
    setFingerprint("");
    setPending(null);
    await load();
  };
  const add = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      try {
        await send({ fingerprint });
      } catch (err) {
        // A session opened long ago: the password first (CurrentPasswordDialog.tsx).
        if (!asksCurrentPassword(err)) throw err;
        setPending({ fingerprint });
      }
    });
  };
  const remove = async (item: CertItem) => {
    try {
      await api("removeCertfp", { params: { fingerprint: item.fingerprint } });
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <Panel title={t("Client certificates")}>
      <p class="muted">
        {t(
          "An IRC client with one of these certificates logs in without a password (SASL EXTERNAL, over TLS). Paste the certificate's SHA-256 fingerprint.",
        )}
      </p>
      {error && <p class="error" role="alert">{error}</p>}
      <form onSubmit={add}>
        <Field
          label={t("SHA-256 fingerprint")}
          name="fingerprint"
          value={fingerprint}
          onInput={setFingerprint}
          errors={errors}
          placeholder="ab:cd:…"
          required
        />
        <button class="primary" type="submit" disabled={busy}>{t("Add the certificate")}</button>
      </form>
      {pending && (
        <CurrentPasswordDialog
          why={t("Enter your current password to add a certificate.")}
          action={t("Add the certificate")}
          confirm={(current) => send({ ...pending, current_password: current })}
          cancel={() => setPending(null)}
        />
      )}
      {list === null && !error && <p class="loading" role="status">{t("Loading…")}</p>}
      {list && (
        <ul class="user-list" aria-label={t("Client certificates")}>
          {list.map((item) => (
            <li key={item.fingerprint}>
              <div class="who">
                <code class="fingerprint">{item.fingerprint}</code>
                <span class="muted">
                  {t("added {time}", {
                    time: new Date(item.created).toLocaleString(language.value),
                  })}
                </span>
              </div>
              <button
                type="button"
                class="danger small"
                onClick={() => remove(item)}
                aria-label={t("Remove {name}", { name: item.fingerprint.slice(0, 16) })}
              >
                {t("Remove")}
              </button>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}
