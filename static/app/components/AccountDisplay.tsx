/** The display choices every device of the user shares: theme, joins and parts, completion, layout. */
import { t } from "../i18n.ts";
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
import { CLIENT_SETTINGS_LIMITS } from "../../../protocol/client_settings.ts";
import { Check, Panel } from "./Field.tsx";

export function AccountDisplay() {
  return (
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
          maxLength={CLIENT_SETTINGS_LIMITS.suffix}
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
  );
}
