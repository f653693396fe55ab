/** Mentions and private messages, newest first; a click opens the message in its context. */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { language, t } from "../i18n.ts";
import { chatPath, linkClick } from "../router.ts";
import { user } from "../state.ts";
import type { Message } from "../types.ts";
import { TopBar } from "./ChatView.tsx";
import { MessageText } from "./MessageText.tsx";
import { nickColor } from "../nick_color.ts";

/** One message in a result list, linking to its place in the conversation. */
export function ResultItem(p: { m: Message; showConv?: boolean }) {
  const m = p.m;
  const href = chatPath(m.connection_id ?? "", m.conversation_id ?? "", m.ts);
  return (
    <li>
      <a href={href} onClick={linkClick} class="result">
        <span class="meta">
          <span class="nick" style={{ color: nickColor(m.from) }}>{m.from}</span>
          {p.showConv && <span class="where">{m.conversation_id || m.connection_id}</span>}
          <time dateTime={m.ts}>{new Date(m.ts).toLocaleString(language.value)}</time>
        </span>
        <span class="text">
          <MessageText text={m.message} />
        </span>
      </a>
    </li>
  );
}

/** The notifications screen; opening it marks them read. */
export function Notifications() {
  const [list, setList] = useState<Message[] | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    api("notificationMessages")
      .then(async (r) => {
        setList(r.messages ?? []);
        await api("markNotificationsAsRead");
        if (user.value) user.value = { ...user.value, unread: 0 };
      })
      .catch((e) => setError((e as Error).message));
  }, []);
  return (
    <main class="page">
      <TopBar title={t("Notifications")} />
      <div class="page-body">
        {error && <p class="error" role="alert">{error}</p>}
        {list === null && !error && <p class="loading" role="status">{t("Loading…")}</p>}
        {list && !list.length && <p class="empty">{t("No mentions yet.")}</p>}
        {list && list.length > 0 && (
          <ul class="results">
            {list.map((m) => <ResultItem key={m.ts + m.from} m={m} showConv />)}
          </ul>
        )}
      </div>
    </main>
  );
}
