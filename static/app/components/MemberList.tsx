/** The member list of a channel: grouped by rank with counts, a filter, a menu on each nick. */
import { useState } from "preact/hooks";
import { t } from "../i18n.ts";
import { connections, key } from "../state.ts";
import {
  awayNicks,
  filterMembers,
  groupMembers,
  members,
  parsePrefix,
  prefixOf,
} from "../members.ts";
import { nickColor } from "../nick_color.ts";
import { openNickMenu } from "../overlays.ts";

/** The panel; `onPick` is called with a nick the user clicked (it goes into the message box). */
export function MemberList(p: { cid: string; conv: string; onClose?: () => void }) {
  const [filter, setFilter] = useState("");
  // While the connection is down nobody can say who is in the channel: the list kept from before
  // would be a guess, so it is not shown until the connection is back (and NAMES tells again).
  const down = connections.value[p.cid]?.state !== "connected";
  const list = down ? undefined : members.value[key(p.cid, p.conv)];
  // The server's own ranks and signs (ISUPPORT PREFIX), else the usual ones.
  const prefix = parsePrefix(connections.value[p.cid]?.info?.prefix);
  const shown = filterMembers(list ?? [], filter);
  const groups = groupMembers(shown, prefix);
  const names = {
    op: t("Operators"),
    voice: t("Voiced"),
    rest: t("Others"),
  };
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
      <div class="member-groups">
        {groups.map((g) => (
          <section key={g.rank} class={"member-group " + g.rank}>
            <p class="member-group-title">
              {names[g.rank]} <span class="count">{g.members.length}</span>
            </p>
            <ul aria-label={names[g.rank]}>
              {g.members.map((m) => {
                const sign = prefixOf(m, prefix);
                const menu = (e: MouseEvent) => {
                  e.preventDefault();
                  openNickMenu(p.cid, p.conv, m.nick, e, e.currentTarget as Element);
                };
                const isAway = !!awayNicks.value[p.cid]?.has(m.nick.toLowerCase());
                return (
                  <li key={m.nick} title={sign + m.nick} class={isAway ? "away" : undefined}>
                    <span class="prefix" aria-hidden={sign ? undefined : "true"}>{sign}</span>
                    <button
                      type="button"
                      class="nick"
                      style={{ color: nickColor(m.nick) }}
                      aria-haspopup="menu"
                      onClick={menu}
                      onContextMenu={menu}
                    >
                      {m.nick}
                    </button>
                    {isAway && <span class="away-tag">{t("away")}</span>}
                  </li>
                );
              })}
            </ul>
          </section>
        ))}
      </div>
      {down && (
        <p class="muted members-unknown" role="status">
          {t("Who is here is unknown until the connection is back.")}
        </p>
      )}
      {list && !shown.length && <p class="muted">{t("Nobody matches.")}</p>}
    </aside>
  );
}
