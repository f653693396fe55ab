/** A conversation's menu in the sidebar: its notification level, pinning, its settings, closing it. */
import { t } from "../i18n.ts";
import { navigate } from "../router.ts";
import { conversations, key } from "../state.ts";
import { runCommand } from "../actions.ts";
import { closeOverlay, type ConvMenuAt } from "../overlays.ts";
import { NotifyChoice } from "./NotifyChoice.tsx";
import { useMenuPlace } from "./use_menu_place.ts";
import { pinnedIndex, setPinned } from "../prefs.ts";

export function ConvMenu(p: { at: ConvMenuAt }) {
  const { cid, conv } = p.at;
  const name = conversations.value[key(cid, conv)]?.name ?? conv;
  const pinned = pinnedIndex(cid, conv);
  // The current choice takes the focus for the keyboard.
  const { ref, ...pos } = useMenuPlace(p.at, "[aria-checked=true]");
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
          void setPinned(cid, conv, pinned < 0);
        }}
      >
        {pinned < 0 ? t("Pin to the top") : t("Unpin")}
      </button>
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
