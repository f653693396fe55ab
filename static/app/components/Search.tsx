/** Search over all conversations (`#channel` and `@nick` narrow it); results grouped by conversation. */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { t } from "../i18n.ts";
import { navigate } from "../router.ts";
import type { MessagePage } from "../types.ts";
import { TopBar } from "./ChatView.tsx";
import { ResultItem } from "./Notifications.tsx";
import { groupResults } from "../util.ts";

/** The search screen; the query lives in the URL so results can be returned to. */
export function Search(p: { q: string }) {
  const [text, setText] = useState(p.q);
  const [result, setResult] = useState<MessagePage | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    setText(p.q);
    setResult(null);
    setError("");
    if (!p.q.trim()) return;
    api("searchMessages", { query: { match: p.q, limit: 100 } })
      .then((r) => setResult({ ...r, messages: r.messages ?? [] }))
      .catch((e) => setError((e as Error).message));
  }, [p.q]);
  return (
    <main class="page">
      <TopBar title={t("Search")} />
      <div class="page-body">
        <form
          class="search-form"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            navigate("/chat/search?q=" + encodeURIComponent(text));
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
          <p class="hint">
            {t(
              'Every word must match. Use "quoted words" for a phrase, #channel and @nick to narrow.',
            )}
          </p>
        </form>
        {error && <p class="error" role="alert">{error}</p>}
        {result && !result.messages.length && <p class="empty">{t("Nothing found.")}</p>}
        {result &&
          groupResults(result.messages).map((g) => (
            <section class="result-group" key={g.key}>
              <h2>{g.title}</h2>
              <ul class="results">
                {g.items.map((m) => <ResultItem key={m.ts + m.from} m={m} />)}
              </ul>
            </section>
          ))}
      </div>
    </main>
  );
}
