/** Search over all conversations (`#channel` and `@nick` narrow it); results grouped by conversation. */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { t } from "../i18n.ts";
import { navigate } from "../router.ts";
import type { MessagePage } from "../types.ts";
import { TopBar } from "./ChatView.tsx";
import { connName, ResultItem } from "./Notifications.tsx";
import { groupResults } from "../util.ts";
import { user } from "../state.ts";

/** The words a result is highlighted with: the query without its #channel, @nick and quotes. */
function searchedWords(q: string): string[] {
  const words: string[] = [];
  for (const m of q.matchAll(/"([^"]+)"|(\S+)/g)) {
    const w = m[1] ?? m[2];
    if (m[1] || !/^[#&@]/.test(w)) words.push(w);
  }
  return words.sort((a, b) => b.length - a.length);
}

/** A day (yyyy-mm-dd) as the start of that day in this browser's time zone, ISO; or undefined. */
const dayStart = (day: string, plus = 0) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const d = new Date(day + "T00:00:00");
  d.setDate(d.getDate() + plus);
  return d.toISOString();
};

/** The search screen; the query and the days live in the URL so results can be returned to. */
export function Search(p: { q: string; from?: string; to?: string }) {
  const [text, setText] = useState(p.q);
  const [from, setFrom] = useState(p.from ?? "");
  const [to, setTo] = useState(p.to ?? "");
  const [result, setResult] = useState<MessagePage | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    setText(p.q);
    setFrom(p.from ?? "");
    setTo(p.to ?? "");
    setResult(null);
    setError("");
    if (!p.q.trim()) return;
    // "to" includes the whole of its day.
    const after = dayStart(p.from ?? ""), before = dayStart(p.to ?? "", 1);
    api("searchMessages", { query: { match: p.q, limit: 100, after, before } })
      .then((r) => setResult({ ...r, messages: r.messages ?? [] }))
      .catch((e) => setError((e as Error).message));
  }, [p.q, p.from, p.to]);
  const words = searchedWords(p.q);
  const keptDays = user.value?.message_retention_days ?? 0;
  return (
    <main class="page">
      <TopBar title={t("Search")} />
      <div class="page-body">
        <form
          class="search-form"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            navigate(
              "/chat/search?q=" + encodeURIComponent(text) + (from ? "&from=" + from : "") +
                (to ? "&to=" + to : ""),
            );
          }}
        >
          <label for="search-input">{t("Search messages")}</label>
          <div class="row">
            <input
              id="search-input"
              type="search"
              value={text}
              onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
              autoFocus
            />
            <button class="primary" type="submit">{t("Search")}</button>
          </div>
          <div class="row dates">
            <label>
              {t("From")}{" "}
              <input
                type="date"
                value={from}
                onInput={(e) => setFrom((e.currentTarget as HTMLInputElement).value)}
              />
            </label>
            <label>
              {t("To")}{" "}
              <input
                type="date"
                value={to}
                onInput={(e) => setTo((e.currentTarget as HTMLInputElement).value)}
              />
            </label>
          </div>
          <p class="hint">
            {t(
              'Every word must match. Use "quoted words" for a phrase, #channel and @nick to narrow.',
            )}
          </p>
          {keptDays > 0 && (
            <p class="hint retention-note">
              {t("Messages older than {days} days are deleted.", { days: keptDays })}
            </p>
          )}
        </form>
        {error && <p class="error" role="alert">{error}</p>}
        {result && !result.messages.length && <p class="empty">{t("Nothing found.")}</p>}
        {result &&
          groupResults(result.messages).map((g) => {
            const first = g.items[0];
            const conn = connName(first.connection_id ?? "");
            return (
              <section class="result-group" key={g.key}>
                <h2>{first.conversation_id ? `${first.conversation_id} · ${conn}` : conn}</h2>
                <ul class="results">
                  {g.items.map((m) => <ResultItem key={m.ts + m.from} m={m} words={words} />)}
                </ul>
              </section>
            );
          })}
      </div>
    </main>
  );
}
