/**
 * The completion popup above the message box: a listbox whose chosen option the box names with
 * aria-activedescendant, so the focus stays in the box while arrows move the choice. What it
 * offers is popup.ts's, loaded on demand.
 */
import { useEffect, useRef } from "preact/hooks";
import { t } from "../i18n.ts";
import type { Popup } from "../popup.ts";

/** The id of the popup's list; its options' are this with "-" and their index. */
export const POPUP_ID = "completion-list";

/** The popup `p`; a press on an option takes it (`choose`) without taking the box's focus. */
export function CompletionPopup(p: { popup: Popup; choose: (index: number) => void }) {
  const ref = useRef<HTMLUListElement>(null);
  const { items, index, kind } = p.popup;
  useEffect(() => {
    ref.current?.querySelector("[aria-selected=true]")?.scrollIntoView({ block: "nearest" });
  }, [index, items]);
  const label = kind === "command"
    ? t("Commands")
    : kind === "channel"
    ? t("Channels")
    : kind === "emoji"
    ? t("Emoji")
    : t("Nicks");
  return (
    <ul ref={ref} id={POPUP_ID} class="completion-popup" role="listbox" aria-label={label}>
      {items.map((item, i) => (
        <li
          key={item.value}
          id={`${POPUP_ID}-${i}`}
          role="option"
          aria-selected={i === index}
          class={i === index ? "selected" : ""}
          onMouseDown={(e) => {
            e.preventDefault(); // the box keeps the focus
            p.choose(i);
          }}
        >
          <span class="completion-label">{item.label}</span>
          {item.detail && <span class="completion-detail">{item.detail}</span>}
          {item.description && <span class="completion-hint">{t(item.description)}</span>}
        </li>
      ))}
    </ul>
  );
}
