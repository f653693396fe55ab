/** The member list of a channel: operators and voiced first, a count and a filter. */
import { useState } from "preact/hooks";
import { t } from "../i18n.ts";
import { connections, key } from "../state.ts";
import { filterMembers, members, parsePrefix, prefixOf, sortMembers } from "../members.ts";
import { nickColor } from "../nick_color.ts";

/** The panel; `onPick` is called with a nick the user clicked (it goes into the message box). */
export function MemberList(p: { cid: string; conv: string; onClose?: () => void }) {
  const [filter, setFilter] = useState("");
  const list = members.value[key(p.cid, p.conv)];
  // The server's own ranks and signs (ISUPPORT PREFIX), else the usual ones.
  const prefix = parsePrefix(connections.value[p.cid]?.info?.prefix);
  const sorted = list ? sortMembers(list, prefix) : [];
  const shown = filterMembers(sorted, filter);
  return (
    <aside class="members" aria-label={t("Members")}>
      <div class="members-head">
        <h2>
          {t("Members")} <span class="count">{list ? list.length : "…"}</span>
        </h2>
        {p.onClose && (
          <button type="button" class="icon-button close" onClick={p.onClose}>
            <span aria-hidden="true">×</span>
            <span class="visually-hidden">{t("Close")}</span>
          </button>
        )}
      </div>
      <input
        type="search"
        class="members-filter"
        placeholder={t("Filter")}
        aria-label={t("Filter members")}
        value={filter}
        onInput={(e) => setFilter((e.currentTarget as HTMLInputElement).value)}
      />
      <ul>
        {shown.map((m) => {
          const sign = prefixOf(m, prefix);
          return (
            <li key={m.nick} title={sign + m.nick}>
              <span class="prefix" aria-hidden={sign ? undefined : "true"}>{sign}</span>
              <span class="nick" style={{ color: nickColor(m.nick) }}>{m.nick}</span>
            </li>
          );
        })}
      </ul>
      {list && !shown.length && <p class="muted">{t("Nobody matches.")}</p>}
    </aside>
  );
}
