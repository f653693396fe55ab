/** The scrolling history of the open conversation: day separators, nick colours, previews. */
import { useLayoutEffect, useRef } from "preact/hooks";
import { language, t } from "../i18n.ts";
import { findLinks } from "../irc_format.ts";
import { nickColor } from "../nick_color.ts";
import {
  focusTs,
  loadError,
  loading,
  loadNewer,
  loadOlder,
  messages,
  newerCursor,
  olderCursor,
  readMarker,
} from "../view.ts";
import type { Message } from "../types.ts";
import { MessageText } from "./MessageText.tsx";
import { Embed, embedsEnabled } from "./Embed.tsx";

const dayKey = (ts: string) => new Date(ts).toDateString();

function dayLabel(ts: string): string {
  const d = new Date(ts);
  const today = new Date();
  const yesterday = new Date(Date.now() - 86400_000);
  if (d.toDateString() === today.toDateString()) return t("Today");
  if (d.toDateString() === yesterday.toDateString()) return t("Yesterday");
  return d.toLocaleDateString(language.value, {
    weekday: "long",
    year: "numeric",
    month: "long",
    day: "numeric",
  });
}

const timeOf = (ts: string) =>
  new Date(ts).toLocaleTimeString(language.value, { hour: "2-digit", minute: "2-digit" });

function Line(p: { m: Message; grouped: boolean; onMedia: () => void }) {
  const m = p.m;
  if (m.event) {
    return (
      <li class={"line event " + m.event} data-ts={m.ts}>
        <time dateTime={m.ts}>{timeOf(m.ts)}</time>
        <span class="text">{m.message}</span>
      </li>
    );
  }
  const color = { color: nickColor(m.from) };
  const links = embedsEnabled() ? findLinks(m.message).slice(0, 1) : [];
  const cls = "line " + (m.type ?? "privmsg") + (m.highlight ? " highlight" : "") +
    (p.grouped ? " grouped" : "") + (focusTs.value === m.ts ? " focus" : "");
  return (
    <li class={cls} data-ts={m.ts}>
      <time dateTime={m.ts} title={new Date(m.ts).toLocaleString(language.value)}>
        {timeOf(m.ts)}
      </time>
      {m.type === "action"
        ? (
          <span class="text">
            <span class="nick" style={color}>* {m.from}</span> <MessageText text={m.message} />
          </span>
        )
        : (
          <>
            <span class="nick" style={color}>
              {m.type === "notice" ? `-${m.from}-` : m.from}
            </span>
            <span class="text">
              <MessageText text={m.message} />
            </span>
          </>
        )}
      {links.map((url) => <Embed key={url} url={url} onLoad={p.onMedia} />)}
    </li>
  );
}

/** The message list; keeps the reading position when older pages are prepended. */
export function MessageList() {
  const ref = useRef<HTMLDivElement>(null);
  const state = useRef({ first: "", count: 0, height: 0, atBottom: true, jumped: "" });
  const list = messages.value;

  const atBottom = () => {
    const el = ref.current!;
    return el.scrollHeight - el.scrollTop - el.clientHeight < 40;
  };

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const s = state.current;
    const first = list[0]?.ts ?? "";
    if (focusTs.value && s.jumped !== focusTs.value && list.length) {
      const target = el.querySelector(`[data-ts="${CSS.escape(focusTs.value)}"]`);
      if (target) {
        target.scrollIntoView({ block: "center" });
        s.jumped = focusTs.value;
      }
    } else if (s.count && first !== s.first && list.length > s.count) {
      // Older messages were prepended: keep the same message under the reader's eyes.
      el.scrollTop += el.scrollHeight - s.height;
    } else if (s.atBottom || !s.count) {
      el.scrollTop = el.scrollHeight;
    }
    s.first = first;
    s.count = list.length;
    s.height = el.scrollHeight;
    s.atBottom = atBottom();
  }, [list]);

  const onScroll = async () => {
    const el = ref.current!;
    const s = state.current;
    s.atBottom = atBottom();
    s.height = el.scrollHeight;
    if (el.scrollTop < 300 && olderCursor.value && !loading.value) await loadOlder();
  };

  const onMedia = () => {
    if (state.current.atBottom) ref.current!.scrollTop = ref.current!.scrollHeight;
    state.current.height = ref.current!.scrollHeight;
  };

  let prevDay = "";
  let prev: Message | undefined;
  return (
    <div class="messages" ref={ref} onScroll={onScroll} tabIndex={0} aria-label={t("Messages")}>
      {!olderCursor.value && !loading.value && list.length > 0 && (
        <p class="history-start">{t("This is the start of the conversation.")}</p>
      )}
      {loading.value && <p class="loading" role="status">{t("Loading…")}</p>}
      {loadError.value && <p class="error" role="alert">{loadError.value}</p>}
      {!loading.value && !list.length && !loadError.value && (
        <p class="empty">{t("No messages yet. Say hello!")}</p>
      )}
      <ol class="lines" role="log" aria-live="polite">
        {list.map((m) => {
          const day = dayKey(m.ts);
          const out = [];
          if (day !== prevDay) {
            out.push(
              <li class="day" key={"d" + m.ts} role="separator">
                <span>{dayLabel(m.ts)}</span>
              </li>,
            );
          }
          if (readMarker.value === m.ts) {
            out.push(
              <li class="new-marker" key={"n" + m.ts} role="separator">
                <span>{t("New messages")}</span>
              </li>,
            );
          }
          const grouped = !!prev && !prev.event && !m.event && prev.from === m.from &&
            day === prevDay && m.type !== "action" &&
            Date.parse(m.ts) - Date.parse(prev.ts) < 5 * 60_000;
          out.push(
            <Line
              key={m.ts + m.from + (m.event ?? "")}
              m={m}
              grouped={grouped}
              onMedia={onMedia}
            />,
          );
          prevDay = day;
          prev = m;
          return out;
        })}
      </ol>
      {newerCursor.value && (
        <button
          type="button"
          class="jump-live"
          onClick={() => loadNewer()}
        >
          {t("Jump to the latest messages")}
        </button>
      )}
    </div>
  );
}
