/**
 * The account screen: password, highlight keywords, automatic away, sessions, the display choices
 * every device of the user shares (theme, layout, clock, previews, joins and parts, completion),
 * and this browser's notifications, sound and language.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, ApiFailure, type Body } from "../api.ts";
import { chooseLanguage, language, languages, t } from "../i18n.ts";
import { applyUser, showToast, user } from "../state.ts";
import {
  type ClientSettings,
  clock24,
  compact,
  joinParts,
  saveSettings,
  seconds,
  settings,
} from "../prefs.ts";
import { setJoinParts, setPref } from "../settings_edit.ts";
import type { JoinPartMode } from "../event_runs.ts";
import { Check, Field, FormErrors, Panel, Saved, useFormAction } from "./Field.tsx";
import { TopBar } from "./ChatView.tsx";
import { Sessions } from "./Sessions.tsx";
import { AppTokens } from "./AppTokens.tsx";
import { Certificates } from "./Certificates.tsx";
import { Ignores } from "./Ignores.tsx";
import { canHandleLinks, handleIrcLinks } from "../irc_link.ts";
import { pushSupported } from "../push.ts";
import { currentSubscription, disablePush, enablePush } from "../push_subscription.ts";

/** The server's answer when a new password needs the current one (a session logged in long ago). */
function asksCurrentPassword(err: unknown): boolean {
  return err instanceof ApiFailure &&
    err.errors.some((e) => e.path === "/body/current_password");
}

/**
 * A modal dialog asking for the current password; `confirm` sends the change with it and throws
 * the API's errors (a wrong password is shown at the field and the dialog stays open).
 */
function CurrentPasswordDialog(
  p: { confirm: (current: string) => Promise<void>; cancel: () => void },
) {
  const ref = useRef<HTMLDialogElement>(null);
  const [current, setCurrent] = useState("");
  const { errors, busy, run } = useFormAction();
  useEffect(() => {
    if (!ref.current?.open) ref.current?.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      class="password-dialog"
      aria-labelledby="password-dialog-title"
      onClose={p.cancel}
    >
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void run(() => p.confirm(current));
        }}
      >
        <h2 id="password-dialog-title">{t("Confirm your password")}</h2>
        <p>{t("Enter your current password to set a new one.")}</p>
        <Field
          label={t("Current password")}
          name="current_password"
          type="password"
          value={current}
          onInput={setCurrent}
          errors={errors}
          autocomplete="current-password"
          autofocus
        />
        <FormErrors errors={errors} fields={["current_password"]} />
        <div class="actions">
          <button class="primary" type="submit" disabled={busy}>{t("Set the new password")}</button>
          <button type="button" onClick={() => ref.current?.close()}>{t("Cancel")}</button>
        </div>
      </form>
    </dialog>
  );
}

/** The account settings. */
export function Account() {
  const u = user.value!;
  const [password, setPassword] = useState("");
  // The change waiting for the current password, while the dialog asks for it.
  const [pending, setPending] = useState<Body<"updateUser"> | null>(null);
  const [keywords, setKeywords] = useState((u.highlight_keywords ?? []).join(", "));
  const { errors, run } = useFormAction();
  const [saved, setSaved] = useState(false);
  const [notify, setNotify] = useState(localStorage.getItem("parley.notify") === "on");
  const [sound, setSound] = useState(localStorage.getItem("parley.sound") === "on");
  const [push, setPush] = useState(false);
  const [autoAway, setAutoAway] = useState(false);
  useEffect(() => {
    void currentSubscription().then((s) => setPush(!!s), () => {});
    void api("getPush").then(
      (r) => setAutoAway(r.auto_away),
      () => {},
    );
  }, []);

  const togglePush = async (on: boolean) => {
    try {
      if (on) await enablePush();
      else await disablePush();
      setPush(on);
    } catch (err) {
      setPush(false);
      showToast(
        t("Notifications could not be enabled: {reason}", { reason: (err as Error).message }),
      );
    }
  };

  const toggleAway = async (on: boolean) => {
    try {
      setAutoAway(
        (await api("updatePushSettings", { body: { auto_away: on } })).auto_away,
      );
    } catch (err) {
      showToast((err as Error).message);
    }
  };

  const save = (e: Event) => {
    e.preventDefault();
    setSaved(false);
    const body: Body<"updateUser"> = {
      highlight_keywords: keywords.split(",").map((k) => k.trim()).filter(Boolean),
    };
    // The current password only when the server asks for it: a fresh login needs none.
    if (password) body.password = password;
    return run(async () => {
      try {
        await send(body);
      } catch (err) {
        if (body.password === undefined || !asksCurrentPassword(err)) throw err;
        setPending(body);
      }
    });
  };

  const send = async (body: Body<"updateUser">) => {
    const next = await api("updateUser", { params: { email: u.email }, body });
    applyUser({ ...u, ...next, connections: undefined, conversations: undefined });
    setPassword("");
    setPending(null);
    setSaved(true);
  };

  const toggleNotify = async (on: boolean) => {
    if (on && typeof Notification !== "undefined" && Notification.permission !== "granted") {
      const p = await Notification.requestPermission();
      if (p !== "granted") {
        showToast(t("The browser did not allow notifications."));
        on = false;
      }
    }
    localStorage.setItem("parley.notify", on ? "on" : "off");
    setNotify(on);
  };

  return (
    <main class="page">
      <TopBar title={t("Account")} subtitle={u.email} />
      <div class="page-body">
        <Panel title={t("Account")}>
          <form onSubmit={save} noValidate>
            <Field label={t("Email")} name="email" value={u.email} onInput={() => {}} readOnly />
            <Field
              label={t("New password")}
              name="password"
              type="password"
              value={password}
              onInput={setPassword}
              errors={errors}
              autocomplete="new-password"
              hint={t("At least 10 characters. Leave empty to keep the current one.")}
            />
            <Field
              label={t("Highlight keywords")}
              name="highlight_keywords"
              value={keywords}
              onInput={setKeywords}
              errors={errors}
              hint={t("Comma-separated words that notify you like your nick does.")}
            />
            <FormErrors
              errors={errors}
              fields={["password", "highlight_keywords"]}
            />
            <div class="actions">
              <button class="primary" type="submit">{t("Save")}</button>
              <Saved show={saved} />
            </div>
          </form>
          {pending && (
            <CurrentPasswordDialog
              confirm={(current) => send({ ...pending, current_password: current })}
              cancel={() => setPending(null)}
            />
          )}
          <div class="checks">
            <Check
              label={t("Away on IRC when no browser is open")}
              name="auto_away"
              checked={autoAway}
              onChange={toggleAway}
            />
          </div>
        </Panel>
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
        <Panel title={t("Display on all your devices")}>
          <div class="field">
            <label for="f-theme">{t("Theme")}</label>
            <select
              id="f-theme"
              value={settings.value.theme}
              onChange={(e) =>
                void saveSettings({
                  theme: (e.currentTarget as HTMLSelectElement).value as ClientSettings["theme"],
                })}
            >
              <option value="system">{t("Follow the system")}</option>
              <option value="light">{t("Light")}</option>
              <option value="dark">{t("Dark")}</option>
            </select>
          </div>
          <div class="field">
            <label for="f-joinparts">{t("Joins and parts")}</label>
            <select
              id="f-joinparts"
              value={joinParts.value}
              onChange={(e) =>
                void setJoinParts((e.currentTarget as HTMLSelectElement).value as JoinPartMode)}
            >
              <option value="condense">{t("Collapse runs into one line")}</option>
              <option value="show">{t("Show each one")}</option>
              <option value="hide">{t("Hide them")}</option>
            </select>
          </div>
          <div class="field">
            <label for="f-suffix">{t("After a completed nick")}</label>
            <input
              id="f-suffix"
              maxLength={8}
              value={settings.value.nick_suffix}
              aria-describedby="f-suffix-hint"
              onChange={(e) =>
                void saveSettings({ nick_suffix: (e.currentTarget as HTMLInputElement).value })}
            />
            <p class="hint" id="f-suffix-hint">
              {t("What Tab puts after a nick at the start of a line, as in “bob: ”.")}
            </p>
          </div>
          <div class="checks">
            <Check
              label={t("Show link previews")}
              name="embeds"
              checked={settings.value.embeds}
              onChange={(v) => void setPref("embeds", v)}
            />
            <Check
              label={t("Compact layout")}
              name="compact"
              checked={compact.value}
              onChange={(v) => void setPref("compact", v)}
            />
            <Check
              label={t("24-hour clock")}
              name="clock24"
              checked={clock24.value}
              onChange={(v) => void setPref("clock24", v)}
            />
            <Check
              label={t("Show seconds")}
              name="seconds"
              checked={seconds.value}
              onChange={(v) => void setPref("seconds", v)}
            />
          </div>
        </Panel>
        <Panel title={t("This browser")}>
          <div class="field">
            <label for="f-language">{t("Language")}</label>
            <select
              id="f-language"
              value={language.value}
              onChange={(e) => chooseLanguage((e.currentTarget as HTMLSelectElement).value)}
            >
              {Object.entries(languages.value).map(([code, l]) => (
                <option key={code} value={code}>{l.name}</option>
              ))}
            </select>
          </div>
          <div class="checks">
            {/* One choice: mentions notify with the tab open (desktop) and closed (push). */}
            <Check
              label={t("Enable notifications")}
              name="push"
              checked={notify || push}
              onChange={async (on) => {
                await toggleNotify(on);
                if (pushSupported()) await togglePush(on);
              }}
            />
            {!pushSupported() && (
              <p class="hint">
                {t("This browser cannot get notifications while Parley is closed.")}
              </p>
            )}
            <Check
              label={t("Sound on mentions")}
              name="sound"
              checked={sound}
              onChange={(v) => {
                localStorage.setItem("parley.sound", v ? "on" : "off");
                setSound(v);
              }}
            />
          </div>
        </Panel>
      </div>
    </main>
  );
}
