/**
 * IRCv3 client tags in the web client, where the server has message-tags: "bob is typing…",
 * replies (`+draft/reply`), reactions (`+draft/react`) counted under their message, and the user's
 * own typing sent as it types. A chunk of its own (static/app/tags_state.ts loads it): servers
 * without message-tags (ngircd) never fetch it. Tagged lines go out as `/quote`, through the
 * server's one line writer and send queue; the server's echo brings them back to every device.
 */
import { computed, signal } from "@preact/signals";
import { useEffect, useState } from "preact/hooks";
import { t } from "./i18n.ts";
import { socket } from "./session.ts";
import { key, myNick } from "./state.ts";
import { appendLive, isOpen, messages, openConv } from "./view.ts";
import type { PushedEvent } from "../../protocol/events.ts";
import { stripFormatting } from "./irc_format.ts";
import type { Message } from "./types.ts";
import { allEmoji } from "./emoji.ts";
import { findEmoji } from "./popup.ts";

/** Who is typing where: conversation key -> nick -> until when (ms) it shows. */
const typing = signal<Record<string, Record<string, number>>>({});

/** The message the composer of conversation `k` replies to. */
const replying = signal<{ k: string; msgid: string; nick: string; text: string } | undefined>(
  undefined,
);

/** Someone's `+typing` arrived: `active` shows 6 s, `paused` 30 s, `done` ends it. */
function typingSeen(k: string, nick: string, state: string): void {
  const span = state === "active" ? 6000 : state === "paused" ? 30000 : 0;
  if (!span && !typing.value[k]?.[nick]) return;
  const here = { ...typing.value[k] };
  if (span) here[nick] = Date.now() + span;
  else delete here[nick];
  typing.value = { ...typing.value, [k]: here };
}

/** A socket event (session.ts hands each one on): typing, a reaction, a message ends typing. */
export function onEvent(f: PushedEvent): void {
  if (f.event === "message") typingSeen(key(f.connection_id, f.conversation_id), f.from, "done");
  if (f.event !== "state") return;
  const cid = f.connection_id;
  if (f.type === "typing" && f.nick !== myNick(cid)) {
    typingSeen(key(cid, f.conversation_id), f.nick, f.typing);
  } else if (f.type === "react" && isOpen(cid, f.conversation_id)) {
    // A line the message list counts under the message it names, as history brings it.
    const ts = f.ts ?? new Date().toISOString();
    appendLive({ from: f.nick, message: f.react, ts, type: "react", reply_to: f.reply_to });
  }
}

/**
 * What the composer of `cid`/`conv` sends for a typed message: with `+draft/reply` when a reply
 * was chosen there (one line only), and the typing told `done`.
 */
export function outgoing(cid: string, conv: string, message: string): string {
  typed(cid, conv, "", true);
  const r = replying.value;
  if (r?.k !== key(cid, conv) || message.includes("\n")) return message;
  replying.value = undefined;
  return replyCommand(conv, r.msgid, message);
}

/** The reactions offered at once: a few common ones. */
const QUICK_REACTIONS = ["👍", "❤️", "😂", "🎉", "👀"];

/** An IRCv3 tag value, escaped. */
const esc = (v: string) =>
  v.replace(
    /[\\; \r\n]/g,
    (c) => ({ "\\": "\\\\", ";": "\\:", " ": "\\s", "\r": "\\r", "\n": "\\n" })[c]!,
  );

/** The `/quote` of one tagged line: the server checks and writes it. */
const quoted = (tags: Record<string, string>, rest: string) =>
  `/quote @${Object.entries(tags).map(([k, v]) => `${k}=${esc(v)}`).join(";")} ${rest}`;

/** Sends one tagged line over the socket. */
function quote(cid: string, conv: string, tags: Record<string, string>, rest: string) {
  return socket.request({
    method: "send",
    connection_id: cid,
    conversation_id: conv,
    message: quoted(tags, rest),
  });
}

/** Reacts with `emoji` to the message whose server msgid is `msgid`. */
export function react(cid: string, conv: string, msgid: string, emoji: string) {
  return quote(cid, conv, { "+draft/react": emoji, "+draft/reply": msgid }, `TAGMSG ${conv}`);
}

/** What the composer sends for `text` (one line) replying to `msgid`. */
const replyCommand = (conv: string, msgid: string, text: string) =>
  quoted({ "+draft/reply": msgid }, `PRIVMSG ${conv} :${text}`);

/** The typing the user's conversations last told, and when. */
const told = new Map<
  string,
  { state: string; at: number; idle?: ReturnType<typeof setTimeout> }
>();

/**
 * The box of conversation `conv` holds `text` now (or was sent: `sent`): `active` at most every
 * 3 s while typing, `paused` after 5 s without a key, `done` when it is cleared or sent.
 */
export function typed(cid: string, conv: string, text: string, sent = false): void {
  if (conv === "" || text.startsWith("/")) return;
  const k = key(cid, conv);
  const last = told.get(k);
  clearTimeout(last?.idle);
  const send = (state: string) => {
    told.set(k, { state, at: Date.now() });
    void quote(cid, conv, { "+typing": state }, `TAGMSG ${conv}`);
  };
  if (!text.trim() || sent) {
    if (last && last.state !== "done") send("done");
    return;
  }
  if (last?.state !== "active" || Date.now() - last.at >= 3000) send("active");
  const now = told.get(k)!;
  now.idle = setTimeout(() => send("paused"), 5000);
}

/** Above the box of conversation `k`: who is typing, and the message it replies to. */
export const AboveBox = (p: { k: string }) => (
  <>
    <TypingLine k={p.k} />
    <ReplyBar k={p.k} />
  </>
);

/** "bob is typing…" for conversation `k`, gone when the last one expires. */
function TypingLine(p: { k: string }) {
  const [, tick] = useState(0);
  const until = typing.value[p.k] ?? {};
  const now = Date.now();
  const who = Object.keys(until).filter((n) => until[n] > now);
  useEffect(() => {
    if (!who.length) return;
    const next = Math.min(...who.map((n) => until[n])) - now;
    const timer = setTimeout(() => tick((n) => n + 1), Math.max(50, next));
    return () => clearTimeout(timer);
  });
  if (!who.length) return null;
  const text = who.length === 1
    ? t("{nick} is typing…", { nick: who[0] })
    : who.length === 2
    ? t("{a} and {b} are typing…", { a: who[0], b: who[1] })
    : t("Several people are typing…");
  return <p class="typing-line" role="status">{text}</p>;
}

/** "Replying to bob: …" above the box of conversation `k`, with a way out. */
function ReplyBar(p: { k: string }) {
  const r = replying.value;
  if (r?.k !== p.k) return null;
  return (
    <p class="reply-bar" role="status">
      <span>{t("Replying to {nick}: {text}", { nick: r.nick, text: r.text })}</span>{" "}
      <button type="button" class="link" onClick={() => (replying.value = undefined)}>
        {t("Cancel reply")}
      </button>
    </p>
  );
}

/**
 * The open conversation's reactions by the server msgid they name, and its messages by their
 * own: the same object while no reaction or id changed, so lines do not render again for nothing.
 */
let last: {
  sig: string;
  reacts: Map<string, Map<string, Set<string>>>;
  byId: Map<string, Message>;
};
const index = computed(() => {
  const list = messages.value;
  const reactRows = list.filter((m) => m.type === "react");
  const ids = list.filter((m) => m.server_msgid);
  const sig = `${reactRows.length}:${reactRows.at(-1)?.ts}:${ids.length}:${ids.at(-1)?.ts}`;
  if (last?.sig === sig) return last;
  const reacts = new Map<string, Map<string, Set<string>>>();
  for (const m of reactRows) {
    if (!m.reply_to) continue;
    const byEmoji = reacts.get(m.reply_to) ?? new Map<string, Set<string>>();
    byEmoji.set(m.message, (byEmoji.get(m.message) ?? new Set()).add(m.from));
    reacts.set(m.reply_to, byEmoji);
  }
  const byId = new Map(ids.map((m) => [m.server_msgid!, m]));
  return last = { sig, reacts, byId };
});

/** A short one-line quote of a message. */
const gist = (m: Message) => {
  const text = stripFormatting(m.message);
  return text.length > 80 ? text.slice(0, 79) + "…" : text;
};

/** Most emoji the picker's search shows. */
const FOUND_LIMIT = 8;

/**
 * The reactions offered: the common ones, and a search of every emoji by name or keyword
 * (`rocket`, `approve`); Enter in it takes the first found, Escape closes the picker.
 */
function ReactionPicker(p: { pick: (emoji: string) => void; close: () => void }) {
  const [query, setQuery] = useState("");
  const table = allEmoji();
  const part = query.trim().toLowerCase().replace(/^:|:$/g, "");
  const searching = part.length >= 2;
  const found = table && searching ? findEmoji(table, part, FOUND_LIMIT) : [];
  const button = (emoji: string, name?: string) => (
    <button
      type="button"
      class="reaction pick"
      key={emoji}
      title={name && `:${name}:`}
      onClick={() => p.pick(emoji)}
    >
      {emoji}
    </button>
  );
  return (
    <>
      {(searching ? [] : QUICK_REACTIONS).map((emoji) => button(emoji))}
      <input
        type="search"
        class="emoji-search"
        aria-label={t("Find an emoji")}
        placeholder={t("Find an emoji")}
        value={query}
        onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && found[0]) {
            e.preventDefault();
            p.pick(found[0].emoji);
          } else if (e.key === "Escape") {
            e.stopPropagation(); // the picker closes, not the drawer or an overlay
            p.close();
          }
        }}
      />
      {found.map((f) => button(f.emoji, f.name))}
      {searching && table && !found.length && <span class="muted">{t("No emoji found.")}</span>}
    </>
  );
}

/** Under a line: the message it replies to, its reactions, and the reply and react actions. */
export function LineExtras(p: { m: Message }) {
  const { m } = p;
  const o = openConv.value;
  const [picking, setPicking] = useState(false);
  const { reacts, byId } = index.value;
  if (!o || !(m.server_msgid || m.reply_to)) return null;
  const to = m.reply_to ? byId.get(m.reply_to) : undefined;
  const counts = m.server_msgid ? reacts.get(m.server_msgid) : undefined;
  const id = m.server_msgid;
  return (
    <>
      {m.reply_to && (
        <span class="reply-quote">
          {to
            ? t("In reply to {nick}: {text}", { nick: to.from, text: gist(to) })
            : t("In reply to {nick}: {text}", { nick: "…", text: "" })}
        </span>
      )}
      {id && (
        <span class="line-tags">
          {counts && [...counts].map(([emoji, who]) => (
            <button
              type="button"
              class="reaction"
              key={emoji}
              title={[...who].join(", ")}
              onClick={() => void react(o.cid, o.conv, id, emoji)}
            >
              {emoji} {who.size}
            </button>
          ))}
          <button
            type="button"
            class="link line-action"
            onClick={() => {
              replying.value = { k: key(o.cid, o.conv), msgid: id, nick: m.from, text: gist(m) };
              document.getElementById("composer-input")?.focus();
            }}
          >
            {t("Reply")}
          </button>
          <button
            type="button"
            class="link line-action"
            aria-expanded={picking}
            onClick={() => setPicking(!picking)}
          >
            {t("React")}
          </button>
          {picking && (
            <ReactionPicker
              close={() => setPicking(false)}
              pick={(emoji) => {
                setPicking(false);
                void react(o.cid, o.conv, id, emoji);
              }}
            />
          )}
        </span>
      )}
    </>
  );
}
