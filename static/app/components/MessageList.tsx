/** The scrolling history of the open conversation: day separators, nick colours, previews. */
import { Component } from "preact";
import { useComputed } from "@preact/signals";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { language, t } from "../i18n.ts";
import { findLinks, stripFormatting } from "../irc_format.ts";
import { nickColor } from "../nick_color.ts";
import {
  focusTs,
  followWith,
  loadError,
  loading,
  loadNewer,
  loadOlder,
  loadToFirstUnread,
  messages,
  newerCursor,
  olderCursor,
  openConv,
  readMarker,
  unreadAtOpen,
} from "../view.ts";
import { key, myNick, nicks, user } from "../state.ts";
import { openNickMenu } from "../overlays.ts";
import { members } from "../members.ts";
import { compact, dateTimeOf, formatter, joinPartsFor, settings, timeOf } from "../prefs.ts";
import { groupRuns, type Item } from "../event_runs.ts";
import type { Message } from "../types.ts";
import { LINE_KINDS, type LineKind, type LineLook } from "../../../protocol/events.ts";
import { MessageText } from "./MessageText.tsx";
import { storedLine } from "../line_words.ts";
import { allowFileDrop, dropOnComposer } from "../file_drop.ts";
import type { Invitation, ListedChannel, Whois } from "./CommandOutput.tsx";
import { afterLoad } from "../lazy.tsx";
import { tagsChunk } from "../tags_state.ts";

/**
 * A link's preview, once the after-first-paint chunk has arrived (the preview comes from the
 * server after the line is shown anyway); command answers as tables come from it too.
 */
function Embed(p: { url: string }) {
  afterLoad.load();
  const Found = afterLoad.get()?.Embed;
  return Found ? <Found url={p.url} /> : null;
}

/** Day keys by timestamp: every render asks for each line's several times. */
const days = new Map<string, string>();
function dayKey(ts: string): string {
  let day = days.get(ts);
  if (day === undefined) {
    if (days.size >= 5000) days.clear();
    day = new Date(ts).toDateString();
    days.set(ts, day);
  }
  return day;
}

function dayLabel(ts: string): string {
  const d = new Date(ts);
  const today = new Date();
  const yesterday = new Date(Date.now() - 86400_000);
  if (d.toDateString() === today.toDateString()) return t("Today");
  if (d.toDateString() === yesterday.toDateString()) return t("Yesterday");
  return formatter(language.value, {
    weekday: "long",
    year: "numeric",
    month: "long",
    day: "numeric",
  }).format(d);
}

/**
 * A line's text: a stored channel event in the words its live line has, made from its fields
 * through the reader's language; a row stored as text (a message, or an event from before events
 * were kept as data) as it was written.
 */
export function storedWords(m: Message): string {
  return (m.event ? undefined : storedLine(m.type, m.fields)) ?? m.message;
}

/** What an event line shows: text, or a command's answer as a table. */
function EventBody(p: { m: Message }) {
  const m = p.m;
  const table = (m.event === "whois" && !!m.data) ||
    (m.event === "list" && Array.isArray(m.data)) || (m.event === "help" && !m.message) ||
    (m.event === "invite" && !!m.data);
  if (table) {
    afterLoad.load();
    const o = afterLoad.get();
    if (!o) return <span class="text" aria-busy="true" />;
    if (m.event === "whois") return <o.WhoisTable w={m.data as Whois} />;
    if (m.event === "list") return <o.ChannelTable channels={m.data as ListedChannel[]} />;
    if (m.event === "invite") return <o.InviteLine text={m.message} to={m.data as Invitation} />;
    return <o.HelpTable />;
  }
  return <span class="text">{storedWords(m)}</span>;
}

interface LineProps {
  m: Message;
  grouped: boolean;
  server: boolean;
  known: Set<string>;
  /** The user sent it. */
  mine?: boolean;
}

/**
 * A line renders again only when its own inputs change (or a signal it reads): a busy channel
 * appends hundreds of lines, and rendering every line for each would take seconds.
 */
class MemoLine extends Component<LineProps> {
  override shouldComponentUpdate(n: LineProps): boolean {
    const o = this.props;
    return n.m !== o.m || n.grouped !== o.grouped || n.server !== o.server ||
      n.known !== o.known || n.mine !== o.mine;
  }
  override render(p: LineProps) {
    return <Line {...p} />;
  }
}

/**
 * How a line looks: by its kind's declaration (protocol/events.ts), whether stored or made by the
 * client from its event (join, part, an error); a command's answer as an event; the server's
 * own notices in its conversation as server lines.
 */
type Look = LineLook | "server";

function lookOf(m: Message, server: boolean): Look {
  const kinds: Record<string, LineKind | undefined> = LINE_KINDS;
  if (m.event) return kinds[m.event]?.look ?? "event";
  const look = kinds[m.type ?? "private"]?.look ?? "chat";
  return server && look === "notice" ? "server" : look;
}

/** The nick column of a line someone sent. */
const Nick = (p: { m: Message; text?: string }) => (
  <span class="nick" style={{ color: nickColor(p.m.from) }} title={p.m.from}>
    {p.text ?? p.m.from}
  </span>
);

/** A small word before the text that says what kind of line it is ("notice", "error"). */
const Marker = (p: { label: string }) => <span class="marker">{p.label}</span>;

/** The text and preview of a line, after its nick. */
function Body(p: LineProps & { marker?: string }) {
  return (
    <span class="text">
      {p.marker && <Marker label={p.marker} />}
      <MessageText text={p.m.message} nicks={p.server ? undefined : p.known} />
    </span>
  );
}

/** Each look's rendering: a new look is a type error until it has one. */
const RENDER: Record<Look, (p: LineProps) => preact.JSX.Element> = {
  chat: (p) => (
    <>
      <Nick m={p.m} />
      <Body {...p} />
    </>
  ),
  action: (p) => (
    <span class="text">
      <span class="nick" style={{ color: nickColor(p.m.from) }}>* {p.m.from}</span>{" "}
      <MessageText text={p.m.message} nicks={p.known} />
    </span>
  ),
  // A notice says it is one, with its sender, and is never folded under the previous line.
  notice: (p) => (
    <>
      <Nick m={p.m} text={`-${p.m.from}-`} />
      <Body {...p} marker={t("notice")} />
    </>
  ),
  error: (p) =>
    p.m.event ? <EventBody m={p.m} /> : (
      <>
        <Nick m={p.m} />
        <Body {...p} marker={t("error")} />
      </>
    ),
  // The server's own lines (the MOTD's ASCII art) keep their columns.
  server: (p) => (
    <>
      <Nick m={p.m} />
      <Body {...p} />
    </>
  ),
  // A channel event or a line the client made: quiet, no nick.
  event: (p) => <EventBody m={p.m} />,
  // Where the connection was down: across the list, so a gap is not taken for silence.
  gap: (p) => <span class="text" role="note">{gapWords(p.m.message)}</span>,
};

/** A gap's stored text ("Disconnected from <time> to <time>: ...") in the reader's words. */
function gapWords(text: string): string {
  const m = /from (\S+) to (\S+):/.exec(text);
  const from = m && Date.parse(m[1]);
  const to = m && Date.parse(m[2]);
  if (!m || !from || !to) return text;
  // The day too, when the gap does not lie within today.
  const today = new Date().toDateString();
  const sameDay = new Date(from).toDateString() === today && new Date(to).toDateString() === today;
  const when = (ts: string) =>
    sameDay ? timeOf(ts, language.value) : dateTimeOf(ts, language.value);
  return t("Disconnected {from} - {to}: messages in between may be missing.", {
    from: when(m[1]),
    to: when(m[2]),
  });
}

function Line(p: LineProps) {
  const m = p.m;
  const look = lookOf(m, p.server);
  const links = settings.value.embeds && !m.event && look !== "event"
    ? findLinks(m.message).slice(0, 1)
    : [];
  // The kind stays in the class names (`join`, `notice`...), beside the look that styles it.
  const kind = m.event ?? m.type ?? "private";
  const Tags = tagsChunk.get();
  const cls = `line look-${look} ${kind}` + (m.event || look === "event" ? " event" : "") +
    (m.highlight ? " highlight" : "") + (p.grouped ? " grouped" : "") +
    (focusTs.value === m.ts ? " focus" : "") + (look === "server" ? " server" : "") +
    (p.mine && look !== "event" ? " mine" : "");
  return (
    <li class={cls} data-ts={m.ts}>
      <time dateTime={m.ts} title={dateTimeOf(m.ts, language.value)}>
        {timeOf(m.ts, language.value)}
      </time>
      {RENDER[look](p)}
      {Tags && <Tags.LineExtras m={m} />}
      {links.map((url) => <Embed key={url} url={url} />)}
    </li>
  );
}

type Run = Extract<Item, { kind: "run" }>;

/** A collapsed run of joins and parts: its counts, a button that opens it, then its lines. */
function RunLine(p: { run: Run; open: boolean; toggle: () => void; known: Set<string> }) {
  const first = p.run.lines[0];
  const c = p.run.counts;
  const summary = [
    c.joined ? t("{n} joined", { n: c.joined }) : "",
    c.left ? t("{n} left", { n: c.left }) : "",
    c.renamed ? t("{n} changed nick", { n: c.renamed }) : "",
  ].filter(Boolean).join(", ");
  return (
    <>
      <li class="line event run" data-ts={first.ts}>
        <time dateTime={first.ts}>{timeOf(first.ts, language.value)}</time>
        <button type="button" class="run-toggle" aria-expanded={p.open} onClick={p.toggle}>
          {summary}
        </button>
      </li>
      {p.open &&
        p.run.lines.map((m) => (
          <MemoLine
            key={m.ts + m.from + (m.event ?? "")}
            m={m}
            grouped={false}
            server={false}
            known={p.known}
          />
        ))}
    </>
  );
}

/**
 * Whether `m` continues the group of `prev`: chat lines (or the server's own lines) of the same
 * sender, the same day, within five minutes. Actions, notices and errors always show their sender.
 */
function continues(prev: Message | undefined, m: Message, server = false): boolean {
  if (!prev || prev.from !== m.from) return false;
  const look = lookOf(m, server);
  return (look === "chat" || look === "server") && lookOf(prev, server) === look &&
    dayKey(prev.ts) === dayKey(m.ts) && Date.parse(m.ts) - Date.parse(prev.ts) <= 5 * 60_000;
}

/** What a screen reader says of a new line: who, and what (an action as the sender doing it). */
function spokenLine(m: Message): string {
  const text = stripFormatting(m.message);
  return lookOf(m, false) === "action" ? `* ${m.from} ${text}` : `${m.from}: ${text}`;
}

/** Nicks known in the open conversation, lower-cased, for colouring mentions in messages. */
function knownNicks(): Set<string> {
  const o = openConv.value;
  const out = new Set<string>();
  if (!o) return out;
  const k = key(o.cid, o.conv);
  for (const m of members.value[k] ?? []) out.add(m.nick.toLowerCase());
  for (const n of nicks.get(k) ?? []) out.add(n.toLowerCase());
  return out;
}

/** Pixels from the top within which the next older page is loaded. */
const NEAR_TOP = 300;

/**
 * Where the reader left each conversation scrolled up, for this session: the first line in view
 * and how far its top was below the list's. A conversation left at its newest line has none.
 */
const positions = new Map<string, { ts: string; offset: number }>();
/** Older pages loaded at most to find a kept position again. */
const RESTORE_PAGES = 10;

/**
 * The message list. Keeps the reading position when older pages are prepended, stays pinned to
 * the newest message while previews load above it, and counts what arrives while scrolled up.
 */
export function MessageList() {
  const ref = useRef<HTMLDivElement>(null);
  const linesRef = useRef<HTMLOListElement>(null);
  const state = useRef({
    first: "",
    last: "",
    count: 0,
    height: 0,
    /** Pinned to the newest message: only the reader scrolling up unpins. */
    atBottom: true,
    lastTop: 0,
    jumped: "",
  });
  const [unseen, setUnseen] = useState(0);
  /** The newest line's words, for screen readers (a polite live region). */
  const [spoken, setSpoken] = useState("");
  const [scrolledUp, setScrolledUp] = useState(false);
  /** The new-messages line is above what the reader sees. */
  const [markerAbove, setMarkerAbove] = useState(false);
  /** The runs of joins and parts the reader opened, by key. */
  const [openRuns, setOpenRuns] = useState<ReadonlySet<string>>(new Set());
  const list = messages.value;
  const here = openConv.value ? key(openConv.value.cid, openConv.value.conv) : "";
  // How joins and parts show here: the list renders again when that changes, not at every setting.
  const joinPartsHere = useComputed(() =>
    joinPartsFor(openConv.value?.cid ?? "", openConv.value?.conv ?? "")
  );
  /** The position to find again in the conversation just opened, until it is found. */
  const restore = useRef<{ ts: string; offset: number; pages: number } | null>(null);

  const atBottom = () => {
    // Unmounted (left while a page loaded): nothing to measure.
    const el = ref.current;
    if (!el) return true;
    return el.scrollHeight - el.scrollTop - el.clientHeight < 40;
  };
  // Pinned to the newest message, as the reader last moved: a scroll's event comes with the next
  // frame, and lines arriving before it would otherwise decide. Moved up since the list last
  // looked, it no longer follows (content shrinking moves scrollTop up too, but leaves the list
  // at its end); moved down to the end as it was then, it follows again.
  const pinned = () => {
    const el = ref.current;
    const s = state.current;
    if (!el) return s.atBottom;
    if (s.atBottom && el.scrollTop < s.lastTop - 2 && !atBottom()) s.atBottom = false;
    else if (
      !s.atBottom && el.scrollTop > s.lastTop + 2 && s.height - el.scrollTop - el.clientHeight < 40
    ) s.atBottom = true;
    return s.atBottom;
  };
  useEffect(() => followWith(pinned), []);
  // More than a screen above the newest message: worth a button back.
  const farUp = () => {
    const el = ref.current;
    if (!el) return false;
    return el.scrollHeight - el.scrollTop - el.clientHeight > el.clientHeight;
  };
  // The line the reader has seen once needs no button back to it.
  const markerSeen = useRef<string | undefined>(undefined);
  const checkMarker = () => {
    const el = ref.current;
    if (!el) return;
    const marker = el.querySelector(".new-marker");
    const above = !!marker &&
      marker.getBoundingClientRect().bottom < el.getBoundingClientRect().top + 4;
    const inView = !!marker && !above &&
      marker.getBoundingClientRect().top < el.getBoundingClientRect().bottom;
    if (inView) markerSeen.current = readMarker.value;
    setMarkerAbove(above && markerSeen.current !== readMarker.value);
  };
  const toFirstUnread = async () => {
    if (!readMarker.value) {
      await loadToFirstUnread();
      // Rendered and laid out before scrolling to it.
      await new Promise((r) => requestAnimationFrame(r));
    }
    const marker = ref.current?.querySelector(".new-marker");
    marker?.scrollIntoView({ block: "start" });
    state.current.atBottom = atBottom();
    state.current.lastTop = ref.current?.scrollTop ?? 0;
    setMarkerAbove(false);
  };
  // The first unread message is further back than the loaded pages.
  const markerFurther = unreadAtOpen.value > 0 && !readMarker.value && !!olderCursor.value;
  const toBottom = () => {
    const el = ref.current;
    if (!el) return;
    el.scrollTop = el.scrollHeight;
    state.current.atBottom = true;
    state.current.height = el.scrollHeight;
    state.current.lastTop = el.scrollTop;
  };

  // The older page is asked for whenever the top is near, however the list got there. A scroll
  // event alone is not enough: a wheel or a key at the very top fires none, and neither does a
  // page that adds no height (joins and parts folded into the run already at the top), so the
  // list would stay at the top with history left to load. A failed page is not asked for again
  // until the reader moves.
  const loadIfNearTop = () => {
    const el = ref.current;
    if (!el || el.scrollTop >= NEAR_TOP || !canLoadOlder()) return;
    if (loadError.value) return;
    void loadOlder();
  };
  // The cursor and the loading flag are read as they are now, the list's top as it was last laid
  // out: an effect of the empty list before the first page, run after that page's signals were set
  // but before it was rendered, saw the top of an empty list and asked for a second page at once,
  // leaving the reader a page further back than opened. Lines arriving at the end change nothing
  // at the top: a busy channel still pages in.
  const canLoadOlder = () =>
    !!olderCursor.value && !loading.value && state.current.first === (messages.value[0]?.ts ?? "");

  useEffect(() => {
    // Previews, images and tables change height after the scroll was set: while the reader is at
    // the newest message, every such change keeps them there.
    const lines = linesRef.current;
    if (!lines || typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(() => {
      const el = ref.current;
      if (!el) return;
      if (pinned() && !focusTs.value) el.scrollTop = el.scrollHeight;
      state.current.height = el.scrollHeight;
      state.current.lastTop = el.scrollTop;
      loadIfNearTop();
    });
    ro.observe(lines);
    ro.observe(ref.current!);
    return () => ro.disconnect();
  }, []);

  useLayoutEffect(() => {
    const kept = positions.get(here);
    restore.current = kept ? { ...kept, pages: 0 } : null;
  }, [here]);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const s = state.current;
    const first = list[0]?.ts ?? "";
    const last = list[list.length - 1]?.ts ?? "";
    if (focusTs.value && s.jumped !== focusTs.value && list.length) {
      const target = el.querySelector(`[data-ts="${CSS.escape(focusTs.value)}"]`);
      if (target) {
        target.scrollIntoView({ block: "center" });
        s.jumped = focusTs.value;
      }
    } else if ((first === s.first ? pinned() : s.atBottom) || !s.count) {
      // At the newest line it stays in view, older lines put in front or not (a conversation's
      // first page coming after lines that arrived live while it loaded, a short one paging in
      // its past): kept by height instead, the "Loading…" line or a button leaving in the same
      // render left the list short of its end, and it stopped following. Lines put in front or
      // gone from it move scrollTop with them: that is not the reader moving.
      el.scrollTop = el.scrollHeight;
    } else if (first !== s.first && list.length > s.count) {
      // Older messages were prepended: keep the same message under the reader's eyes.
      el.scrollTop += el.scrollHeight - s.height;
    } else if (first === s.first && list.length > s.count) {
      // New messages below while the reader is scrolled up: count them for "Jump to latest".
      const added = list.slice(s.count).filter((m) => !m.event).length;
      if (added) setUnseen((n) => n + added);
    }
    if (!list.length) setUnseen(0);
    // Lines arriving at the end (not a page loaded before or a conversation opened) are spoken:
    // the line that was last is still there, before them (the oldest may have gone).
    const was = s.count && last !== s.last ? list.findLastIndex((m) => m.ts === s.last) : -1;
    if (was >= 0) {
      const newest = list.slice(was + 1).filter((m) => !m.event).at(-1);
      // The same words twice in a row are changed by a space, or the region would not speak.
      const text = newest && spokenLine(newest);
      if (text) setSpoken((said) => (said === text ? text + "\u00a0" : text));
    }
    s.first = first;
    s.last = last;
    s.count = list.length;
    s.height = el.scrollHeight;
    s.atBottom = atBottom();
    s.lastTop = el.scrollTop;
    setScrolledUp(farUp());
    checkMarker();
  }, [list, readMarker.value]);

  // Back in a conversation left scrolled up: the same line at the same place, once its page is in.
  useLayoutEffect(() => {
    const r = restore.current;
    const el = ref.current;
    if (!r || !el || !list.length || focusTs.value) return;
    const line = el.querySelector(`[data-ts="${CSS.escape(r.ts)}"]`);
    if (line) {
      restore.current = null;
      el.scrollTop += line.getBoundingClientRect().top - el.getBoundingClientRect().top - r.offset;
      const s = state.current;
      s.atBottom = atBottom();
      s.lastTop = el.scrollTop;
      s.height = el.scrollHeight;
      setScrolledUp(farUp());
      checkMarker();
    } else if (olderCursor.value && r.pages++ < RESTORE_PAGES) void loadOlder();
    else restore.current = null;
  }, [list]);

  // The list's other parts ("Loading…", the start of history, the jump buttons) change its
  // height too, outside the lines the observer watches: at the newest line, it stays there. Where
  // it is then is recorded too: a part going away moves scrollTop up, and the scroll event that
  // follows must not be taken for the reader scrolling up. A render that changed no height
  // leaves the scrolling alone.
  useLayoutEffect(() => {
    const el = ref.current;
    const s = state.current;
    if (!el || !pinned() || focusTs.value || el.scrollHeight === s.height) return;
    el.scrollTop = el.scrollHeight;
    s.height = el.scrollHeight;
    s.lastTop = el.scrollTop;
  });

  /** Keeps where the reader is in this conversation, for coming back to it. */
  const keepPosition = () => {
    // Not while a kept position is still to be found: the list is not the reader's yet.
    if (!here || restore.current) return;
    // At the newest line (the common case) nothing is measured.
    if (state.current.atBottom) {
      positions.delete(here);
      return;
    }
    const el = ref.current;
    const lines = linesRef.current?.querySelectorAll<HTMLElement>("[data-ts]");
    if (!el || !lines?.length || loading.value || focusTs.value) return;
    const box = el.getBoundingClientRect();
    // With the newest line in view there is nothing to keep either (content shrinking below can
    // look like the reader scrolling up).
    if (lines[lines.length - 1].getBoundingClientRect().top < box.bottom) {
      positions.delete(here);
      return;
    }
    // The first line whose bottom is below the list's top, by halves: a long history has many.
    const top = box.top;
    let lo = 0, hi = lines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (lines[mid].getBoundingClientRect().bottom > top) hi = mid;
      else lo = mid + 1;
    }
    const line = lines[lo];
    positions.set(here, {
      ts: line.dataset.ts!,
      offset: line.getBoundingClientRect().top - top,
    });
  };

  // After every page put in front (its height set and the position kept) and every load that
  // ended, the top may still be near.
  useEffect(loadIfNearTop, [list, loading.value, olderCursor.value]);

  const onScroll = async () => {
    const el = ref.current;
    if (!el) return;
    const s = state.current;
    // Content growing below (a preview loading) also moves the bottom away; only the reader
    // scrolling up unpins the view.
    if (atBottom()) s.atBottom = true;
    else if (el.scrollTop < s.lastTop - 2) s.atBottom = false;
    else if (s.atBottom && !focusTs.value) el.scrollTop = el.scrollHeight;
    s.lastTop = el.scrollTop;
    s.height = el.scrollHeight;
    setScrolledUp(farUp());
    checkMarker();
    if (s.atBottom && !newerCursor.value) setUnseen(0);
    keepPosition();
    if (el.scrollTop < NEAR_TOP && canLoadOlder()) await loadOlder();
  };

  const jump = async () => {
    if (newerCursor.value) {
      focusTs.value = undefined;
      await loadNewer();
    }
    setUnseen(0);
    toBottom();
    setScrolledUp(false);
  };

  const o = openConv.value;
  const k = o ? key(o.cid, o.conv) : "";
  // A click or right-click on a nick (the sender's, or one mentioned) opens its menu.
  const nickMenu = (e: MouseEvent) => {
    const el = (e.target as HTMLElement).closest?.(".line .nick, .line .mention-nick");
    if (!el || !o || o.conv === "" || (e.target as HTMLElement).closest("a")) return;
    const nick = el.getAttribute("title") ??
      (el.textContent ?? "").replace(/^\* /, "").replace(/^-(.*)-$/, "$1");
    if (!nick || nick.includes(".")) return; // a server, not a person
    e.preventDefault();
    openNickMenu(o.cid, o.conv, nick.trim(), e, el);
  };
  // Recomputed when the members or the speakers change, so that lines need not re-render.
  const known = useMemo(knownNicks, [k, members.value[k], nicks.get(k)?.size]);
  const server = openConv.value?.conv === "";
  const me = o ? myNick(o.cid).toLowerCase() : "";
  let prevDay = "";
  let prev: Message | undefined;
  return (
    <div
      class={"messages" + (compact.value ? " compact" : "")}
      ref={ref}
      onScroll={onScroll}
      onClick={nickMenu}
      onContextMenu={nickMenu}
      onDragOver={allowFileDrop}
      onDrop={dropOnComposer}
      tabIndex={0}
      role="log"
      aria-label={t("Messages")}
      // The log is not read out whole on each change: the newest line alone is, below.
      aria-live="off"
    >
      <p class="visually-hidden" role="status" aria-live="polite">{spoken}</p>
      {(markerAbove || markerFurther) && (
        <button
          type="button"
          class="jump-unread primary"
          onClick={() => void toFirstUnread()}
        >
          {t("Jump to first unread ({n})", { n: unreadAtOpen.value })}
        </button>
      )}
      {!olderCursor.value && !loading.value && list.length > 0 && (
        <p class="history-start">
          {(user.value?.message_retention_days ?? 0) > 0
            // Older lines may have been deleted: the start is where retention cut it.
            ? t("Messages older than {days} days are deleted.", {
              days: user.value!.message_retention_days!,
            })
            : t("This is the start of the conversation.")}
        </p>
      )}
      {loading.value && <p class="loading" role="status">{t("Loading…")}</p>}
      {loadError.value && <p class="error" role="alert">{loadError.value}</p>}
      {!loading.value && !list.length && !loadError.value && (
        <p class="empty">{t("No messages yet. Say hello!")}</p>
      )}
      <ol class="lines" ref={linesRef}>
        {groupRuns(
          // Reactions are counted under their message (client_tags.tsx), not shown as lines.
          list.filter((m) => m.type !== "react"),
          joinPartsHere.value,
          (a, b) => dayKey(a.ts) !== dayKey(b.ts) || readMarker.value === b.ts,
        ).map((item) => {
          const m = item.kind === "run" ? item.lines[0] : item.m;
          const day = dayKey(m.ts);
          const out = [];
          if (day !== prevDay) {
            out.push(
              <li class="day" key={"d" + m.ts}>
                <span>{dayLabel(m.ts)}</span>
              </li>,
            );
          }
          if (readMarker.value === m.ts) {
            out.push(
              <li class="new-marker" key={"n" + m.ts}>
                <span>{t("New messages")}</span>
              </li>,
            );
          }
          if (item.kind === "run") {
            const open = openRuns.has(item.key);
            out.push(
              <RunLine
                key={item.key}
                run={item}
                open={open}
                known={known}
                toggle={() =>
                  setOpenRuns((now) => {
                    const next = new Set(now);
                    if (open) next.delete(item.key);
                    else next.add(item.key);
                    return next;
                  })}
              />,
            );
            prevDay = day;
            prev = item.lines[item.lines.length - 1];
            return out;
          }
          out.push(
            <MemoLine
              key={m.ts + m.from + (m.event ?? "")}
              m={m}
              grouped={continues(prev, m, server && m.from.includes("."))}
              server={server && m.from.includes(".")}
              known={known}
              mine={!!me && m.from.toLowerCase() === me}
            />,
          );
          prevDay = day;
          prev = m;
          return out;
        })}
      </ol>
      {(newerCursor.value || unseen > 0 || scrolledUp) && (
        <button type="button" class="jump-live primary" onClick={jump}>
          {t("Jump to latest")}
          {unseen > 0 && (
            <span class="count">{t("{n} new", { n: unseen > 999 ? "999+" : unseen })}</span>
          )}
        </button>
      )}
    </div>
  );
}
