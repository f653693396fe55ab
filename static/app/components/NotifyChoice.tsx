/** The choice of a conversation's notification level, in its settings and its sidebar menu. */
import { t } from "../i18n.ts";
import { conversations, key, showToast } from "../state.ts";
import { notifyOf, setNotify } from "../conv_prefs.ts";
import { NOTIFY_LEVELS, type NotifyLevel } from "../../../protocol/limits.ts";

/** What each level is called. */
const LEVEL_LABELS: Record<NotifyLevel, string> = {
  all: "All messages",
  mentions: "Mentions only",
  muted: "Muted",
};

/** The three levels as radio items; `role` "menuitemradio" inside a menu. */
export function NotifyChoice(p: { cid: string; conv: string; menu?: boolean; done?: () => void }) {
  const c = conversations.value[key(p.cid, p.conv)];
  const now = notifyOf(c ?? { conversation_id: p.conv });
  const choose = (level: NotifyLevel) => {
    p.done?.();
    setNotify(p.cid, p.conv, level).catch((e) => showToast((e as Error).message));
  };
  return (
    <div role="group" aria-label={t("Notifications")} class="notify-choice">
      {NOTIFY_LEVELS.map((level) =>
        p.menu
          ? (
            <button
              key={level}
              type="button"
              role="menuitemradio"
              aria-checked={now === level}
              onClick={() => choose(level)}
            >
              {now === level ? "✓ " : ""}
              {t(LEVEL_LABELS[level])}
            </button>
          )
          : (
            <label key={level} class="check">
              <input
                type="radio"
                name={`notify-${p.conv}`}
                checked={now === level}
                onChange={() => choose(level)}
              />
              {t(LEVEL_LABELS[level])}
            </label>
          )
      )}
    </div>
  );
}
