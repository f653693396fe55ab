/** The overlays: the quick switcher (Ctrl+K), the list of keys (?) and a nick's menu. */
import { useEffect, useRef, useState } from "preact/hooks";
import { t } from "../i18n.ts";
import { navigate } from "../router.ts";
import { connections, key, myNick } from "../state.ts";
import { members, parsePrefix, rank } from "../members.ts";
import { runCommand } from "../actions.ts";
import { closeOverlay, type NickMenuAt, overlay } from "../overlays.ts";
import { switcherEntries, switcherMatches } from "../shortcuts.ts";
import { ConvMenu } from "./ConvMenu.tsx";
import { useMenuPlace } from "./use_menu_place.ts";

/** Whichever overlay is open. */
export function Overlays() {
  const o = overlay.value;
  if (!o) return null;
  return (
    <div class="overlay-scrim" onClick={(e) => e.target === e.currentTarget && closeOverlay()}>
      {o.kind === "switcher" && <QuickSwitcher />}
      {o.kind === "keys" && <KeysHelp />}
      {o.kind === "nick" && <NickMenu at={o.at} />}
      {o.kind === "conv" && <ConvMenu at={o.at} />}
    </div>
  );
}

/** Finds any conversation by part of its name; Up/Down choose, Enter opens. */
function QuickSwitcher() {
  const [q, setQ] = useState("");
  const [i, setI] = useState(0);
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const found = switcherMatches(switcherEntries(), q).slice(0, 12);
  const open = (n: number) => {
    const e = found[n];
    if (!e) return;
    closeOverlay();
    navigate(e.path);
  };
  return (
    <div class="overlay switcher" role="dialog" aria-modal="true" aria-label={t("Go to")}>
      <input
        ref={ref}
        type="search"
        aria-label={t("Conversation name")}
        placeholder={t("Go to a conversation…")}
        value={q}
        onInput={(e) => {
          setQ((e.currentTarget as HTMLInputElement).value);
          setI(0);
        }}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown" || e.key === "ArrowUp") {
            e.preventDefault();
            const n = found.length || 1;
            setI((now) => (now + (e.key === "ArrowDown" ? 1 : -1) + n) % n);
          } else if (e.key === "Enter") {
            e.preventDefault();
            open(i);
          }
        }}
      />
      <ul role="listbox" aria-label={t("Conversations")}>
        {found.map((e, n) => (
          <li
            key={e.path}
            role="option"
            aria-selected={n === i}
            class={n === i ? "selected" : ""}
            onClick={() => open(n)}
          >
            <span class="label">{e.label}</span>
            <span class="where">{e.where}</span>
            {e.unread > 0 && <span class="badge">{e.unread}</span>}
          </li>
        ))}
      </ul>
      {!found.length && <p class="muted">{t("Nothing found.")}</p>}
    </div>
  );
}

/** The keyboard shortcuts, as a table. */
const KEYS: [string, string][] = [
  ["Ctrl+K, Alt+J", "Go to a conversation by name"],
  ["Alt+↑, Alt+↓", "Previous or next conversation"],
  ["Alt+Shift+↑, Alt+Shift+↓", "Previous or next conversation with unread messages"],
  ["Alt+M", "Next conversation that mentions you"],
  ["Ctrl+B, Ctrl+U, Ctrl+I", "Bold, underline, italic"],
  ["Tab, Shift+Tab", "Complete a nick, channel or command"],
  ["↑, ↓", "Recall a sent line"],
  ["Shift+Enter", "A new line in the message"],
  ["Escape", "Close this, a menu or the drawer"],
  ["?", "This list (also /help keys)"],
];

function KeysHelp() {
  const ref = useRef<HTMLButtonElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <div class="overlay keys" role="dialog" aria-modal="true" aria-label={t("Keyboard shortcuts")}>
      <h2>{t("Keyboard shortcuts")}</h2>
      <table>
        <tbody>
          {KEYS.map(([k, what]) => (
            <tr key={k}>
              <th scope="row">
                <kbd>{k}</kbd>
              </th>
              <td>{t(what)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button ref={ref} type="button" onClick={closeOverlay}>{t("Close")}</button>
    </div>
  );
}

/** Up and Down (wrapping), Home and End move the focus through a menu's items. */
function menuKeys(e: KeyboardEvent): void {
  const items = [
    ...(e.currentTarget as HTMLElement).querySelectorAll<HTMLElement>("[role=menuitem]"),
  ];
  if (!items.length) return;
  const at = items.indexOf(document.activeElement as HTMLElement);
  const n = items.length;
  const to = e.key === "ArrowDown"
    ? (at + 1) % n
    : e.key === "ArrowUp"
    ? (at - 1 + n) % n
    : e.key === "Home"
    ? 0
    : e.key === "End"
    ? n - 1
    : -1;
  if (to < 0) return;
  e.preventDefault();
  items[to].focus();
}

/** A nick's menu: a private conversation, who it is and, for operators, the channel's tools. */
function NickMenu(p: { at: NickMenuAt }) {
  const { cid, conv, nick } = p.at;
  // The first item takes the focus for the keyboard.
  const { ref, ...pos } = useMenuPlace(p.at, "button");
  const channel = /^[#&!+]/.test(conv);
  const list = members.value[key(cid, conv)] ?? [];
  const prefix = parsePrefix(connections.value[cid]?.info?.prefix);
  const lower = (n: string) => n.toLowerCase();
  const me = list.find((m) => lower(m.nick) === lower(myNick(cid)));
  const them = list.find((m) => lower(m.nick) === lower(nick));
  const opRank = prefix.modes.indexOf("o");
  // Half-operators and above may kick; operators and above set modes, as IRC servers allow.
  const isOp = channel && !!me && opRank >= 0 && rank(me, prefix) <= opRank;
  const has = (mode: string) => !!them?.modes.includes(mode);
  const run = (line: string) => {
    closeOverlay();
    void runCommand(cid, conv, line);
  };
  const items: [string, string][] = [
    [t("Private conversation"), `/query ${nick}`],
    [t("Who is this?"), `/whois ${nick}`],
  ];
  // Everyone but the user may be ignored, everywhere (the list is in the account settings).
  if (lower(nick) !== lower(myNick(cid))) items.push([t("Ignore"), `/ignore ${nick}`]);
  if (isOp && them) {
    // The commands, not raw MODE lines: /ban bans by the host the server tells.
    items.push(
      has("o") ? [t("Take operator"), `/deop ${nick}`] : [t("Make operator"), `/op ${nick}`],
      has("v") ? [t("Take voice"), `/devoice ${nick}`] : [t("Give voice"), `/voice ${nick}`],
      [t("Kick"), `/kick ${nick}`],
      [t("Ban"), `/ban ${nick}`],
    );
  }
  return (
    <div
      ref={ref}
      class="overlay nick-menu"
      role="menu"
      aria-label={t("Actions for {nick}", { nick })}
      style={{ left: `${pos.left}px`, top: `${pos.top}px` }}
      onKeyDown={menuKeys}
    >
      <p class="nick-menu-title">{nick}</p>
      {items.map(([label, line]) => (
        <button
          key={line}
          type="button"
          role="menuitem"
          onClick={() => run(line)}
        >
          {label}
        </button>
      ))}
    </div>
  );
}
