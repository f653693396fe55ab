/** Administration: server settings with disk usage, users (roles, delete, invites), profiles. */
import { t } from "../i18n.ts";
import { linkClick } from "../router.ts";
import { TopBar } from "./ChatView.tsx";
import { ServerSettings } from "./AdminServer.tsx";
import { Users } from "./AdminUsers.tsx";
import { Profiles } from "./AdminProfiles.tsx";
import { at } from "../base.ts";

type Tab = "server" | "users" | "profiles";

function Tabs(p: { tab: Tab }) {
  const tabs: [Tab, string][] = [
    ["server", t("Server")],
    ["users", t("Users")],
    ["profiles", t("Connection profiles")],
  ];
  return (
    <nav class="tabs" aria-label={t("Administration")}>
      {tabs.map(([id, label]) => (
        <a
          key={id}
          href={at(`/settings/${id}`)}
          onClick={linkClick}
          aria-current={p.tab === id ? "page" : undefined}
        >
          {label}
        </a>
      ))}
    </nav>
  );
}

/** The administration screen with its three tabs. */
export function Admin(p: { tab: Tab }) {
  return (
    <main class="page">
      <TopBar title={t("Administration")} />
      <div class="page-body">
        <Tabs tab={p.tab} />
        {p.tab === "server" && <ServerSettings />}
        {p.tab === "users" && <Users />}
        {p.tab === "profiles" && <Profiles />}
      </div>
    </main>
  );
}
