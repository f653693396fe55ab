/** Mentions and private messages, newest first; a click opens the message in its context. */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { language, t } from "../i18n.ts";
import { chatPath, linkClick } from "../router.ts";
import { connections, user } from "../state.ts";
import { dayTimeOf } from "../prefs.ts";
import { connectionTitle } from "../conn_status.ts";
import { stripFormatting } from "../irc_format.ts";
import type { Message } from "../types.ts";
import { TopBar } from "./ChatView.tsx";
import { MessageText } from "./MessageText.tsx";
import { nickColor } from "../nick_color.ts";
import { storedWords } from "./MessageList.tsx";
import { at } from "../base.ts";

/** A connection's name as a person reads it (never its internal id when it has a name). */
export const connName = (cid: string) => connectionTitle(connections.value[cid], cid);

/** The text with every occurrence of the searched `words` marked (plain text, no formatting). */
function Highlighted(p: { text: string; words: string[] }) {
  const text = stripFormatting(p.text);
  const words = p.words.filter(Boolean).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (!words.length) return <>{text}</>;
  const parts = text.split(new RegExp(`(${words.join("|")})`, "iu"));
  return <>{parts.map((s, i) => (i % 2 ? <mark key={i}>{s}</mark> : s))}</>;
}

/** One message in a result list, linking to its place in the conversation. */
export function ResultItem(p: { m: Message; showConv?: boolean; words?: string[] }) {
  const m = p.m;
  const href = chatPath(m.connection_id ?? "", m.conversation_id ?? "", m.ts);
  // A `/me` line reads as the sender doing it, as in the conversation.
  const action = m.type === "action";
  const text = storedWords(m);
  return (
    <li class={action ? "action" : undefined}>
      <a href={at(href)} onClick={linkClick} class="result">
        <span class="meta">
          <span class="nick" style={{ color: nickColor(m.from) }}>{m.from}</span>
          {p.showConv && (
            <span class="where">{m.conversation_id || connName(m.connection_id ?? "")}</span>
          )}
          <time dateTime={m.ts}>{dayTimeOf(m.ts, language.value)}</time>
        </span>
        <span class="text">
          {action && <span class="nick" style={{ color: nickColor(m.from) }}>* {m.from}</span>}
          {action && " "}
          {p.words ? <Highlighted text={text} words={p.words} /> : <MessageText text={text} />}
        </span>
      </a>
    </li>
  );
}

/** The notifications screen; opening it marks them read. */
export function Notifications() {
  const [list, setList] = useState<Message[] | null>(null);
  const [error, setError] = useState("");
  // Dismissed notifications stay hidden in this browser: the newest dismissed one is kept.
  const [dismissed, setDismissed] = useState(localStorage.getItem("parley.dismissed") ?? "");
  const dismiss = () => {
    const newest = list?.[0]?.ts ?? "";
    localStorage.setItem("parley.dismissed", newest);
    setDismissed(newest);
  };
  useEffect(() => {
    api("notificationMessages")
      .then(async (r) => {
        setList(r.messages ?? []);
        await api("markNotificationsAsRead");
        if (user.value) user.value = { ...user.value, unread: 0 };
      })
      .catch((e) => setError((e as Error).message));
  }, []);
  const shown = list?.filter((m) => !dismissed || m.ts > dismissed) ?? null;
  return (
    <main class="page">
      <TopBar
        title={t("Notifications")}
        actions={shown && shown.length > 0 && (
          <button type="button" class="dismiss" onClick={dismiss}>{t("Dismiss all")}</button>
        )}
      />
      <div class="page-body">
        {error && <p class="error" role="alert">{error}</p>}
        {list === null && !error && <p class="loading" role="status">{t("Loading…")}</p>}
        {shown && !shown.length && <p class="empty">{t("No mentions yet.")}</p>}
        {shown && shown.length > 0 && (
          <ul class="results">
            {shown.map((m) => <ResultItem key={m.ts + m.from} m={m} showConv />)}
          </ul>
        )}
      </div>
    </main>
  );
}
