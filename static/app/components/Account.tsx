/**
 * The account screen: password, highlight keywords, automatic away, sessions, the display choices
 * every device of the user shares (theme, layout, clock, previews, joins and parts, completion),
 * and this browser's notifications, sound and language.
 */
import { useEffect, useState } from "preact/hooks";
import { api, type Body } from "../api.ts";
import { t } from "../i18n.ts";
import { applyUser, showToast, user } from "../state.ts";
import { useForm } from "../form.ts";
import { Check, Field, FormErrors, Panel, Saved } from "./Field.tsx";
import { asksCurrentPassword, CurrentPasswordDialog } from "./CurrentPasswordDialog.tsx";
import { TopBar } from "./ChatView.tsx";
import { renewingSession } from "../session.ts";
import { Sessions } from "./Sessions.tsx";
import { AppTokens } from "./AppTokens.tsx";
import { Certificates } from "./Certificates.tsx";
import { Ignores } from "./Ignores.tsx";
import { AccountDisplay } from "./AccountDisplay.tsx";
import { AccountBrowser } from "./AccountBrowser.tsx";
import { canHandleLinks, handleIrcLinks } from "../irc_link.ts";

/** The account's password and highlight keywords, and automatic away. */
function AccountPanel() {
  const u = user.value!;
  const form = useForm({
    password: "",
    highlight_keywords: (u.highlight_keywords ?? []).join(", "),
  });
  // The change waiting for the current password, while the dialog asks for it.
  const [pending, setPending] = useState<Body<"updateUser"> | null>(null);
  const [saved, setSaved] = useState(false);
  const [autoAway, setAutoAway] = useState(false);
  useEffect(() => {
    void api("getPush").then(
      (r) => setAutoAway(r.auto_away),
      () => {},
    );
  }, []);

  const toggleAway = async (on: boolean) => {
    try {
      setAutoAway(
        (await api("updatePushSettings", { body: { auto_away: on } })).auto_away,
      );
    } catch (err) {
      showToast((err as Error).message);
    }
  };

  const send = async (body: Body<"updateUser">) => {
    const request = () => api("updateUser", { params: { email: u.email }, body });
    // A new password of one's own ends this page's session and opens another.
    const next = body.password ? await renewingSession(request) : await request();
    applyUser({ ...u, ...next, connections: undefined, conversations: undefined });
    form.set("password")("");
    setPending(null);
    setSaved(true);
  };

  const save = form.onSubmit(async (v) => {
    setSaved(false);
    const body: Body<"updateUser"> = {
      highlight_keywords: v.highlight_keywords.split(",").map((k) => k.trim()).filter(Boolean),
    };
    // The current password only when the server asks for it: a fresh login needs none.
    if (v.password) body.password = v.password;
    try {
      await send(body);
    } catch (err) {
      if (body.password === undefined || !asksCurrentPassword(err)) throw err;
      setPending(body);
    }
  });

  return (
    <Panel title={t("Account")}>
      <form onSubmit={save} noValidate>
        <Field label={t("Email")} name="email" value={u.email} onInput={() => {}} readOnly />
        <Field
          {...form.field("password", t("New password"))}
          type="password"
          autocomplete="new-password"
          hint={t("At least 10 characters. Leave empty to keep the current one.")}
        />
        <Field
          {...form.field("highlight_keywords", t("Highlight keywords"))}
          hint={t("Comma-separated words that notify you like your nick does.")}
        />
        <FormErrors {...form.rest()} />
        <div class="actions">
          <button class="primary" type="submit">{t("Save")}</button>
          <Saved show={saved} />
        </div>
      </form>
      {pending && (
        <CurrentPasswordDialog
          why={t("Enter your current password to set a new one.")}
          action={t("Set the new password")}
          confirm={(current) => send({ ...pending, current_password: current })}
          cancel={() => setPending(null)}
        />
      )}
      {/* Set as it is ticked, not by the form's Save: apart from the form. */}
      <div class="checks apart">
        <Check
          label={t("Away on IRC while no Parley page is in view and no IRC client is attached")}
          name="auto_away"
          checked={autoAway}
          onChange={toggleAway}
        />
      </div>
    </Panel>
  );
}

/** The account settings. */
export function Account() {
  const u = user.value!;
  return (
    <main class="page">
      <TopBar title={t("Account")} subtitle={u.email} />
      <div class="page-body">
        <AccountPanel />
        <Sessions />
        <AppTokens />
        <Certificates />
        <Ignores />
        {canHandleLinks() && (
          <Panel title={t("IRC links")}>
            <p class="muted">{t("Let this browser open irc:// links in Parley.")}</p>
            <div class="actions">
              <button type="button" onClick={() => handleIrcLinks()}>
                {t("Open irc:// links here")}
              </button>
            </div>
          </Panel>
        )}
        <AccountDisplay />
        <AccountBrowser />
      </div>
    </main>
  );
}
