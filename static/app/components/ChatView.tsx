/** One conversation: header with name and topic, the message list and the composer. */
import { useEffect, useLayoutEffect, useState } from "preact/hooks";
import { t } from "../i18n.ts";
import { linkClick } from "../router.ts";
import {
  addNickFirst,
  connections,
  conversations,
  drawerOpen,
  key,
  myNick,
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
import { socket } from "../session.ts";
import { language } from "../i18n.ts";
import { dayTimeOf } from "../prefs.ts";
import { afterLoad } from "../lazy.tsx";
import { at } from "../base.ts";

/** The header bar shared by every screen of the chat layout (menu button on narrow screens). */
export function TopBar(
  p: {
    title: string;
    subtitle?: string;
    /** Shown in place of `subtitle`: a channel's topic with its setter, editable. */
    topic?: preact.ComponentChildren;
    actions?: preact.ComponentChildren;
  },
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
        {p.topic ?? (p.subtitle && (
          <p class="topic" title={p.subtitle}>
            <MessageText text={p.subtitle} />
          </p>
        ))}
      </div>
      {p.actions}
    </header>
  );
}

/** Prefix modes that may set the topic whatever the channel's modes (halfop and up). */
const TOPIC_RANKS = ["q", "a", "o", "h"];

/**
 * A channel's topic in the header: who set it and when (the server's RPL_TOPICWHOTIME, asked with
 * `/topic` when the channel opens and whenever the topic changes), and, for someone who may
 * change it (an operator, or anyone where the channel lacks +t), a click edits it in place.
 */
function ChannelTopic(p: { cid: string; conv: string; topic: string }) {
  const [meta, setMeta] = useState<{ by?: string; at?: string }>({});
  const [open, setOpen] = useState(false); // the channel lacks +t
  const [editing, setEditing] = useState(false);
  const live = socketState.value === "open" &&
    connections.value[p.cid]?.state === "connected";
  const me = myNick(p.cid).toLowerCase();
  const mine = members.value[key(p.cid, p.conv)]?.find((m) => m.nick.toLowerCase() === me);
  const op = !!mine?.modes.some((m) => TOPIC_RANKS.includes(m));
  useEffect(() => setEditing(false), [p.cid, p.conv]);
  // Asked once the channel is joined (not while it waits for its rejoin, whose answers would go
  // out ahead of it).
  const frozen = !!conversations.value[key(p.cid, p.conv)]?.frozen;
  useEffect(() => {
    setMeta({});
    setOpen(false);
    if (!live || frozen) return;
    let gone = false;
    const ask = (message: string) =>
      socket.request({ method: "send", connection_id: p.cid, conversation_id: p.conv, message });
    void ask("/topic").then((a) => {
      if (!gone && !a.errors) setMeta({ by: a.topic_by, at: a.topic_at });
    });
    void ask("/mode").then((a) => {
      if (!gone && !a.errors && typeof a.modes === "string") {
        setOpen(!/^\+?[a-zA-Z]*t/.test(a.modes.split(" ")[0]));
      }
    });
    return () => void (gone = true);
  }, [p.cid, p.conv, p.topic, live, frozen]);
  const editable = live && (op || open);
  const plain = stripFormatting(p.topic);
  if (editing) {
    // Edited by the after-paint chunk, there long before a click in all but the first second.
    afterLoad.load();
    const Edit = afterLoad.get()?.TopicEdit;
    return Edit
      ? <Edit cid={p.cid} conv={p.conv} topic={plain} done={() => setEditing(false)} />
      : <p class="topic channel-topic" aria-busy="true" />;
  }
  const by = meta.by &&
    (meta.at
      ? t("Set by {nick}, {time}", { nick: meta.by, time: dayTimeOf(meta.at, language.value) })
      : t("Set by {nick}", { nick: meta.by }));
  const edit = () => setEditing(true);
  return (
    <p class="topic channel-topic" title={plain || undefined}>
      {/* A click on the text edits it too (not on a link in it); the button is the keyboard's way. */}
      <span
        class={"topic-text" + (editable ? " editable" : "")}
        onClick={editable ? (e) => void (!(e.target as Element).closest("a") && edit()) : undefined}
      >
        {plain ? <MessageText text={plain} /> : editable ? t("Set a topic") : ""}
      </span>
      {editable && (
        <button
          type="button"
          class="icon-button topic-edit-button"
          aria-label={t("Edit the topic")}
          title={t("Edit the topic")}
          onClick={edit}
        >
          <Icon name="pencil" size={14} />
        </button>
      )}
      {plain && by && <span class="topic-by">{by}</span>}
    </p>
  );
}

/** The conversation screen. */
export function ChatView(p: { cid: string; conv: string; around?: string }) {
  const channel = /^[#&!+]/.test(p.conv);
  // In the render that follows the route, not after the next paint: an event handled in between
  // (an unread count, a line) would be taken for the conversation just left, as if it was read.
  useLayoutEffect(() => {
    void openConversation(p.cid, p.conv, p.around);
  }, [p.cid, p.conv, p.around]);
  // A channel waiting for its (re)join is frozen: the server's list of it would not have the user
  // yet. Its members are asked once it is joined again (the user's own join asks too).
  const waiting = !!conversations.value[key(p.cid, p.conv)]?.frozen;
  useEffect(() => {
    // The member list, and everyone in a channel can be Tab-completed, not only those who spoke.
    if (!channel || socketState.value !== "open" || waiting) return;
    void loadMembers(p.cid, p.conv).then((list) => {
      for (const n of list ?? []) {
        if (!nicks.get(key(p.cid, p.conv))?.has(n.nick)) addNickFirst(p.cid, p.conv, n.nick);
      }
    });
  }, [p.cid, p.conv, socketState.value, connections.value[p.cid]?.state, waiting]);
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
        topic={channel
          ? <ChannelTopic cid={p.cid} conv={p.conv} topic={conv?.topic ?? ""} />
          : undefined}
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
              href={at(settings)}
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
