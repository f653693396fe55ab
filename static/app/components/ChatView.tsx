/** One conversation: header with name and topic, the message list and the composer. */
import { useEffect } from "preact/hooks";
import { t } from "../i18n.ts";
import { linkClick } from "../router.ts";
import {
  addNickFirst,
  connections,
  conversations,
  drawerOpen,
  key,
  nicks,
  socketState,
  totals,
} from "../state.ts";
import { loadMembers } from "../session.ts";
import { members, membersOpen } from "../members.ts";
import { connectionProblem, connectionTitle } from "../conn_status.ts";
import { MemberList } from "./MemberList.tsx";
import { openConversation } from "../view.ts";
import { MessageList } from "./MessageList.tsx";
import { Composer } from "./Composer.tsx";
import { MessageText } from "./MessageText.tsx";
import { stripFormatting } from "../irc_format.ts";
import { Icon } from "./Icon.tsx";

/** The header bar shared by every screen of the chat layout (menu button on narrow screens). */
export function TopBar(
  p: { title: string; subtitle?: string; actions?: preact.ComponentChildren },
) {
  return (
    <header class="topbar">
      <button
        type="button"
        class="icon-button menu"
        aria-label={t("Open menu")}
        aria-expanded={drawerOpen.value}
        onClick={() => (drawerOpen.value = !drawerOpen.value)}
      >
        <Icon name="menu" size={22} />
        {totals.value.mention > 0 && <span class="menu-dot mention" aria-hidden="true" />}
        {totals.value.mention === 0 && totals.value.unread > 0 && (
          <span class="menu-dot" aria-hidden="true" />
        )}
      </button>
      <div class="title">
        <h1>{p.title}</h1>
        {p.subtitle && (
          <p class="topic" title={p.subtitle}>
            <MessageText text={p.subtitle} />
          </p>
        )}
      </div>
      {p.actions}
    </header>
  );
}

/** The conversation screen. */
export function ChatView(p: { cid: string; conv: string; around?: string }) {
  const channel = /^[#&!+]/.test(p.conv);
  useEffect(() => {
    void openConversation(p.cid, p.conv, p.around);
  }, [p.cid, p.conv, p.around]);
  useEffect(() => {
    // The member list, and everyone in a channel can be Tab-completed, not only those who spoke.
    if (!channel || socketState.value !== "open") return;
    void loadMembers(p.cid, p.conv).then((list) => {
      for (const n of list ?? []) {
        if (!nicks.get(key(p.cid, p.conv))?.has(n.nick)) addNickFirst(p.cid, p.conv, n.nick);
      }
    });
  }, [p.cid, p.conv, socketState.value, connections.value[p.cid]?.state]);
  const conv = conversations.value[key(p.cid, p.conv)];
  const connection = connections.value[p.cid];
  const title = p.conv ? conv?.name ?? p.conv : connectionTitle(connection, p.cid);
  const subtitle = p.conv
    ? stripFormatting(conv?.topic ?? "")
    : t("Server messages · {state}", { state: t(connection?.state ?? "disconnected") });
  const settings = p.conv
    ? `/settings/conversation/${encodeURIComponent(p.cid)}/${encodeURIComponent(p.conv)}`
    : `/settings/connection/${encodeURIComponent(p.cid)}`;
  const problem = connectionProblem(p.cid);
  const count = members.value[key(p.cid, p.conv)]?.length;
  const showMembers = channel && membersOpen.value;
  return (
    <main class={"chat" + (showMembers ? " with-members" : "")} aria-label={title}>
      <TopBar
        title={title}
        subtitle={subtitle}
        actions={
          <>
            {channel && (
              <button
                type="button"
                class="icon-button members-toggle"
                // The name holds the count it shows, so a voice user can say what they see.
                aria-label={count !== undefined ? t("{n} members", { n: count }) : t("Members")}
                aria-expanded={showMembers}
                title={t("Members")}
                onClick={() => (membersOpen.value = !membersOpen.value)}
              >
                <Icon name="users" size={20} />
                {count !== undefined && <span class="count">{count}</span>}
              </button>
            )}
            <a
              class="icon-button"
              href={settings}
              onClick={linkClick}
              aria-label={t("Conversation settings")}
              title={t("Conversation settings")}
            >
              <Icon name="gear" size={20} />
            </a>
          </>
        }
      />
      <div class="chat-body">
        <div class="chat-main">
          {problem && (
            <p class="conn-problem" role="alert">
              {t("Not connected: {reason}", { reason: problem })}
            </p>
          )}
          <MessageList />
          <Composer cid={p.cid} conv={p.conv} />
        </div>
        {showMembers && (
          <MemberList
            cid={p.cid}
            conv={p.conv}
            onClose={() => (membersOpen.value = false)}
          />
        )}
      </div>
    </main>
  );
}
