/** The sidebar: connections with their state, their conversations with unread and mention badges. */
import { t } from "../i18n.ts";
import { chatPath, linkClick, route } from "../router.ts";
import { drawerOpen, isAdmin, key, mentions, sidebar, socketState, user } from "../state.ts";
import { logout } from "../session.ts";
import { pinnedFirst, pinnedIndex } from "../prefs.ts";
import { detachedLast } from "../conv_prefs.ts";
import { runCommand } from "../actions.ts";
import { openConvMenu } from "../overlays.ts";
import { Logo } from "./Logo.tsx";
import { Icon } from "./Icon.tsx";
import { connectionProblem, connectionTitle } from "../conn_status.ts";
import { useState } from "preact/hooks";
import { lazy } from "../lazy.tsx";
import { at } from "../base.ts";

const JoinChannel = lazy<{ cid: string; network: string; onClose: () => void }>(
  () => import("./rare_screens.ts"),
  "JoinChannel",
);

/** A connection's "Join a channel" button and, once pressed, its dialog (loaded then). */
function JoinControl(p: { cid: string; network: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        class="icon-button join-channel"
        aria-label={t("Join a channel on {network}", { network: p.network })}
        title={t("Join a channel")}
        onClick={() => setOpen(true)}
      >
        <Icon name="plus" size={16} />
      </button>
      {open && <JoinChannel cid={p.cid} network={p.network} onClose={() => setOpen(false)} />}
    </>
  );
}

function NavLink(p: { href: string; label: string; badge?: number; icon?: string }) {
  const current = route.value.split("?")[0] === p.href;
  return (
    <a
      href={at(p.href)}
      class={"nav-link" + (current ? " current" : "")}
      aria-current={current ? "page" : undefined}
      onClick={(e) => {
        drawerOpen.value = false;
        linkClick(e);
      }}
    >
      {p.icon && <Icon name={p.icon} />}
      <span class="label">{p.label}</span>
      {p.badge ? <span class="badge mention">{p.badge}</span> : null}
    </a>
  );
}

/** The sidebar (a drawer on narrow screens). */
export function Sidebar() {
  const here = decodeURIComponent(route.value.split("?")[0]);
  return (
    <nav class={"sidebar" + (drawerOpen.value ? " open" : "")} aria-label={t("Conversations")}>
      <div class="sidebar-head">
        <Logo />
        <span
          class={"socket " + socketState.value}
          role="status"
          title={socketState.value === "open" ? t("Live") : t("Reconnecting…")}
        >
          {socketState.value === "open" ? t("Live") : t("Reconnecting…")}
        </span>
      </div>
      <div class="sidebar-scroll">
        <NavLink
          href="/chat/notifications"
          icon="bell"
          label={t("Notifications")}
          badge={user.value?.unread}
        />
        <NavLink href="/chat/search" icon="search" label={t("Search")} />
        {sidebar.value.map(({ connection: c, conversations }) => (
          <section class="conn" key={c.connection_id}>
            <h2>
              <a
                href={at(chatPath(c.connection_id, ""))}
                title={connectionProblem(c.connection_id) || undefined}
                onClick={(e) => {
                  drawerOpen.value = false;
                  linkClick(e);
                }}
                aria-current={here === `/chat/${c.connection_id}` ? "page" : undefined}
                class={here === `/chat/${c.connection_id}` ? "current" : ""}
              >
                <span class={"dot " + (c.state ?? "disconnected")} aria-hidden="true" />
                <span class="label">{connectionTitle(c, c.connection_id)}</span>
              </a>
              {/* For screen readers, in the heading; the eye has the dot (and the line below). */}
              <span class="state visually-hidden">{t(c.state ?? "disconnected")}</span>
              <a
                class="icon-button"
                href={at(`/settings/connection/${encodeURIComponent(c.connection_id)}`)}
                onClick={(e) => {
                  drawerOpen.value = false;
                  linkClick(e);
                }}
                aria-label={t("Edit connection {name}", {
                  name: connectionTitle(c, c.connection_id),
                })}
                title={t("Edit connection")}
              >
                <Icon name="gear" size={16} />
              </a>
              <JoinControl cid={c.connection_id} network={connectionTitle(c, c.connection_id)} />
            </h2>
            {/* State and why, under the name, on a problem only: not a line per connect. */}
            {connectionProblem(c.connection_id) && (
              <p class="conn-why">
                <span aria-hidden="true">{t(c.state ?? "disconnected")} ·</span>{" "}
                {connectionProblem(c.connection_id)}
              </p>
            )}
            <ul>
              {detachedLast(pinnedFirst(conversations)).map((conv) => {
                const path = chatPath(conv.connection_id, conv.conversation_id);
                const current = here === decodeURIComponent(path);
                const m = mentions.value[key(conv.connection_id, conv.conversation_id)] ?? 0;
                const pinned = pinnedIndex(conv.connection_id, conv.conversation_id) >= 0;
                return (
                  <li
                    key={conv.conversation_id}
                    class={(conv.frozen ? "frozen" : "") +
                      (conv.notify === "muted" ? " muted" : "") + (pinned ? " pinned" : "") +
                      (conv.detached ? " detached" : "")}
                  >
                    <a
                      href={at(path)}
                      onContextMenu={(e) => {
                        e.preventDefault();
                        openConvMenu(conv.connection_id, conv.conversation_id, e);
                      }}
                      class={"conv" + (current ? " current" : "") + (conv.unread ? " unread" : "")}
                      aria-current={current ? "page" : undefined}
                      onClick={(e) => {
                        drawerOpen.value = false;
                        linkClick(e);
                      }}
                    >
                      <span class="label">{conv.name}</span>
                      {conv.notify === "muted" && <span class="visually-hidden">{t("Muted")}</span>}
                      {pinned && <span class="visually-hidden">{t("Pinned")}</span>}
                      {conv.detached && (
                        <span class="visually-hidden">{t("Detached from IRC clients")}</span>
                      )}
                      {m > 0 && (
                        <span class="badge mention" aria-label={t("{n} mentions", { n: m })}>
                          @{m}
                        </span>
                      )}
                      {conv.unread > 0 && (
                        <span class="badge" aria-label={t("{n} unread", { n: conv.unread })}>
                          {conv.unread > 999 ? "999+" : conv.unread}
                        </span>
                      )}
                    </a>
                    <button
                      type="button"
                      class="icon-button conv-close"
                      aria-label={t("Close {name}", { name: conv.name })}
                      title={t("Close {name}", { name: conv.name })}
                      onClick={() =>
                        void runCommand(conv.connection_id, conv.conversation_id, "/close")}
                    >
                      <span aria-hidden="true">×</span>
                    </button>
                  </li>
                );
              })}
            </ul>
          </section>
        ))}
        <NavLink href="/settings/connection/add" icon="plus" label={t("Add connection")} />
      </div>
      <div class="sidebar-foot">
        <NavLink href="/settings/account" icon="user" label={t("Account")} />
        <NavLink href="/settings/files" icon="files" label={t("Files")} />
        {isAdmin.value && (
          <NavLink href="/settings/server" icon="shield" label={t("Administration")} />
        )}
        <button type="button" class="nav-link" onClick={() => logout()}>
          <Icon name="logout" />
          <span class="label">{t("Log out")}</span>
        </button>
      </div>
    </nav>
  );
}
