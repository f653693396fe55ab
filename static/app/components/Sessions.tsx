/** The account's sessions: where and when each was used, with "Sign out" for each. */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { language, t } from "../i18n.ts";
import { expire } from "../session.ts";
import { Panel } from "./Field.tsx";
import { dateTimeOf } from "../prefs.ts";

interface SessionItem {
  id: string;
  created: string;
  last_used: string;
  user_agent: string;
  address: string;
  current: boolean;
}

/** A short name for a user agent: the browser and the system, not the whole string. */
function browserName(ua: string): string {
  // Most specific first: Edge and Opera say Chrome too, Chrome says Safari, Android says Linux.
  const first = (names: [string, string][]) => names.find(([k]) => ua.includes(k))?.[1];
  const browser = first([
    ["Edg/", "Edge"],
    ["OPR/", "Opera"],
    ["Firefox/", "Firefox"],
    ["Chrome/", "Chrome"],
    ["Safari/", "Safari"],
  ]);
  const system = first([
    ["Android", "Android"],
    ["iPhone", "iPhone"],
    ["iPad", "iPad"],
    ["CrOS", "ChromeOS"],
    ["Windows", "Windows"],
    ["Mac OS X", "macOS"],
    ["Linux", "Linux"],
  ]);
  const parts = [browser, system].filter(Boolean);
  return parts.length ? parts.join(", ") : ua.slice(0, 60);
}

/** The sessions panel of the account page. */
export function Sessions() {
  const [list, setList] = useState<SessionItem[] | null>(null);
  const [error, setError] = useState("");
  const load = () =>
    api("listSessions")
      // This browser first, then the most recently used.
      .then((r) => setList(r.sessions.sort((a, b) => Number(b.current) - Number(a.current))), (e) =>
        setError((e as Error).message));
  useEffect(() => void load(), []);
  // With the clock the user chose (24-hour or 12-hour), as everywhere else.
  const when = (ts: string) => dateTimeOf(ts, language.value);

  const signOut = async (s: SessionItem) => {
    try {
      await api("removeSession", { params: { id: s.id } });
      if (s.current) expire();
      else await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <Panel title={t("Sessions")}>
      {error && <p class="error" role="alert">{error}</p>}
      {list === null && !error && <p class="loading" role="status">{t("Loading…")}</p>}
      {list && (
        <ul class="user-list" aria-label={t("Sessions")}>
          {list.map((s) => (
            <li key={s.id}>
              <div class="who">
                <strong>
                  {browserName(s.user_agent) || t("Unknown browser")}
                  {s.current && <>{" · "}{t("This browser")}</>}
                </strong>
                <span class="muted">
                  {[
                    s.address,
                    t("signed in {time}", { time: when(s.created) }),
                    t("last used {time}", { time: when(s.last_used) }),
                  ].filter(Boolean).join(" · ")}
                </span>
              </div>
              <button
                type="button"
                class="danger small"
                onClick={() => signOut(s)}
                aria-label={t("Sign out {name}", { name: browserName(s.user_agent) })}
              >
                {t("Sign out")}
              </button>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}
