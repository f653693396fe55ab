/** What this browser alone keeps: language, notifications (desktop and push) and sound. */
import { useEffect, useState } from "preact/hooks";
import { chooseLanguage, language, languages, t } from "../i18n.ts";
import { showToast } from "../state.ts";
import { pushSupported } from "../push.ts";
import { currentSubscription, disablePush, enablePush } from "../push_subscription.ts";
import { Check, Panel } from "./Field.tsx";

export function AccountBrowser() {
  const [notify, setNotify] = useState(localStorage.getItem("parley.notify") === "on");
  const [sound, setSound] = useState(localStorage.getItem("parley.sound") === "on");
  const [push, setPush] = useState(false);
  useEffect(() => {
    void currentSubscription().then((s) => setPush(!!s), () => {});
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
  );
}
