/** A conversation's menu in the sidebar: its notification level, its settings, closing it. */
import { useEffect, useRef, useState } from "preact/hooks";
import { t } from "../i18n.ts";
import { navigate } from "../router.ts";
import { conversations, key } from "../state.ts";
import { runCommand } from "../actions.ts";
import { closeOverlay, type ConvMenuAt } from "../overlays.ts";
import { NotifyChoice } from "./NotifyChoice.tsx";

export function ConvMenu(p: { at: ConvMenuAt }) {
  const { cid, conv } = p.at;
  const name = conversations.value[key(cid, conv)]?.name ?? conv;
  const ref = useRef<HTMLDivElement>(null);
  const [pos, setPos] = useState({ left: p.at.x, top: p.at.y });
  useEffect(() => {
    // Kept inside the window; the current choice takes the focus for the keyboard.
    const el = ref.current;
    if (!el) return;
    const r = el.getBoundingClientRect();
    setPos({
      left: Math.max(4, Math.min(p.at.x, innerWidth - r.width - 4)),
      top: Math.max(4, Math.min(p.at.y, innerHeight - r.height - 4)),
    });
    (el.querySelector("[aria-checked=true]") as HTMLElement | null)?.focus();
  }, [p.at]);
  const settings = `/settings/conversation/${encodeURIComponent(cid)}/${encodeURIComponent(conv)}`;
  return (
    <div
      ref={ref}
      class="overlay nick-menu"
      role="menu"
      aria-label={t("Actions for {nick}", { nick: name })}
      style={{ left: `${pos.left}px`, top: `${pos.top}px` }}
    >
      <p class="nick-menu-title">{name}</p>
      <NotifyChoice cid={cid} conv={conv} menu done={closeOverlay} />
      <button
        type="button"
        role="menuitem"
        onClick={() => {
          closeOverlay();
          navigate(settings);
        }}
      >
        {t("Settings")}
      </button>
      <button
        type="button"
        role="menuitem"
        onClick={() => {
          closeOverlay();
          void runCommand(cid, conv, "/close");
        }}
      >
        {t("Close")}
      </button>
    </div>
  );
}
