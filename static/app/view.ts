/** The open conversation: its messages, paging older history, live appends and catching up. */
import { signal } from "@preact/signals";
import { api } from "./api.ts";
import { addNick, conversations, key, mentions, myNick, patchConversation } from "./state.ts";
import { FIRST_EVENT_CODE, TYPES } from "../../protocol/messages.ts";
import type { Message, MessagePage } from "./types.ts";

/** Which conversation is open. */
export const openConv = signal<{ cid: string; conv: string } | null>(null);
/** Its messages, oldest first. */
export const messages = signal<Message[]>([]);
/** Cursor for older messages, or undefined when the start is reached. */
export const olderCursor = signal<string | undefined>(undefined);
/** Cursor for newer messages when viewing the past (`around`); undefined at the live end. */
export const newerCursor = signal<string | undefined>(undefined);
/** The timestamp before which messages were read when the conversation was opened. */
export const readMarker = signal<string | undefined>(undefined);
/** How many unread messages the new-messages line encloses (the count when it was opened). */
export const unreadAtOpen = signal(0);
/** The message to highlight after a jump. */
export const focusTs = signal<string | undefined>(undefined);
/** True while a page loads. */
export const loading = signal(false);
/** An error loading history, shown in the view. */
export const loadError = signal("");

const PAGE = 60;
/** How far back the new-messages line is looked for: beyond it, the oldest loaded line. */
const MAX_UNREAD_LOOKBACK = 3000;

/** Stored channel events (join, topic...): never counted as unread by the server. */
const EVENTS = new Set<string>(TYPES.slice(FIRST_EVENT_CODE));

/**
 * Whether the server counted `m` as unread: a message someone else wrote, not a channel event,
 * not a line the client made itself (the server's own rule, irc/record.ts).
 */
function countsAsUnread(m: Message, me: string): boolean {
  return !m.event && !EVENTS.has(m.type ?? "") && m.from.toLowerCase() !== me.toLowerCase();
}

/** The timestamp of the first of the last `unread` counted messages of `list`, if it has them. */
function firstUnread(list: Message[], unread: number, me: string): string | undefined {
  let seen = 0;
  for (let i = list.length - 1; i >= 0; i--) {
    if (!countsAsUnread(list[i], me)) continue;
    if (++seen === unread) return list[i].ts;
  }
  return undefined;
}

/** Event lines about conversations that were not open (an error about a nick), shown on opening. */
const waiting = new Map<string, Message[]>();

/** Keeps an event line for `cid`/`conv` until it is opened (the last few, briefly). */
export function keepForLater(cid: string, conv: string, m: Message): void {
  const k = key(cid, conv);
  const now = Date.now();
  const list = (waiting.get(k) ?? []).filter((x) => now - Date.parse(x.ts) < 120_000);
  waiting.set(k, [...list, m].slice(-5));
}
let generation = 0;

// The server's own messages (conversation "") are the connection's messages.

/** A page of `cid`/`conv`'s history (the server's own messages when `conv` is empty). */
async function history(
  cid: string,
  conv: string,
  q: { limit: number; around?: string; before?: string; after?: string },
): Promise<MessagePage> {
  const page = conv === ""
    ? await api("connectionMessages", { params: { connection_id: cid }, query: q })
    : await api("conversationMessages", {
      params: { connection_id: cid, conversation_id: conv },
      query: q,
    });
  return { ...page, messages: page.messages ?? [] };
}

/** Lines in time order; lines of one time keep their order (the sort is stable). */
function byTime(lines: Message[]): Message[] {
  return lines.sort((a, b) => a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0);
}

/** Whether `cid`/`conv` is the open conversation. */
export function isOpen(cid: string, conv: string): boolean {
  const o = openConv.value;
  return !!o && o.cid === cid && o.conv === conv;
}

/** Opens a conversation at its end, or around a timestamp (a jump from search/notifications). */
export async function openConversation(cid: string, conv: string, around?: string) {
  const gen = ++generation;
  openConv.value = { cid, conv };
  messages.value = [];
  olderCursor.value = undefined;
  newerCursor.value = undefined;
  focusTs.value = around;
  loadError.value = "";
  loading.value = true;
  // A mention counts even if its "unread" event has not arrived yet.
  const unread = Math.max(
    conversations.value[key(cid, conv)]?.unread ?? 0,
    mentions.value[key(cid, conv)] ?? 0,
  );
  try {
    const page = await history(cid, conv, { limit: PAGE, around });
    if (gen !== generation) return;
    for (const m of page.messages) addNick(cid, conv, m.from);
    // Keep what arrived live while the page loaded and the page lacks, each at its time: a join
    // that came while the page loaded may be older than the page's newest message.
    const inPage = new Set(page.messages.map((m) => m.ts));
    const live = around ? [] : messages.value.filter((m) => !inPage.has(m.ts));
    const kept = around ? [] : (waiting.get(key(cid, conv)) ?? []).filter((m) => !inPage.has(m.ts));
    waiting.delete(key(cid, conv));
    messages.value = byTime([...page.messages, ...kept, ...live]);
    olderCursor.value = page.before;
    newerCursor.value = around ? page.after : undefined;
    // The line goes before the first unread message when this page holds it; further back,
    // "Jump to first unread" (or scrolling up) loads the pages until it is found.
    unreadAtOpen.value = unread > 0 && !around ? unread : 0;
    readMarker.value = placeMarker();
  } catch (e) {
    if (gen === generation) loadError.value = (e as Error).message;
  } finally {
    if (gen === generation) loading.value = false;
  }
  if (gen === generation) await markRead(cid, conv);
}

/** The new-messages line's place in the loaded messages, or undefined while it is further back. */
function placeMarker(): string | undefined {
  const o = openConv.value, unread = unreadAtOpen.value;
  if (!o || !unread) return undefined;
  const me = myNick(o.cid);
  const found = firstUnread(messages.value, unread, me);
  if (found || olderCursor.value) return found;
  // The start of history holds fewer than the count (history cleared): its first message.
  return messages.value.find((m) => countsAsUnread(m, me))?.ts;
}

/**
 * Loads older pages until the first unread message is among them (joins and parts in between
 * are not counted, as the server does not count them); at most MAX_UNREAD_LOOKBACK messages.
 */
export async function loadToFirstUnread(): Promise<void> {
  const o = openConv.value;
  if (!o || loading.value) return;
  const gen = generation;
  loading.value = true;
  try {
    while (gen === generation && !readMarker.value && olderCursor.value) {
      if (messages.value.length >= MAX_UNREAD_LOOKBACK) break;
      const page = await history(o.cid, o.conv, { limit: 200, before: olderCursor.value });
      if (gen !== generation) return;
      messages.value = [...page.messages, ...messages.value];
      olderCursor.value = page.before;
      readMarker.value = placeMarker();
    }
  } catch (e) {
    loadError.value = (e as Error).message;
  } finally {
    if (gen === generation) loading.value = false;
  }
}

/** Resolves once no page is loading. */
export function whenLoaded(): Promise<void> {
  if (!loading.value) return Promise.resolve();
  return new Promise((resolve) => {
    const stop = loading.subscribe((busy) => {
      if (busy) return;
      queueMicrotask(() => stop());
      resolve();
    });
  });
}

/** Loads the page before the oldest shown message; returns how many were added. */
export async function loadOlder(): Promise<number> {
  const o = openConv.value;
  if (!o || loading.value || !olderCursor.value) return 0;
  const gen = generation;
  loading.value = true;
  try {
    const page = await history(o.cid, o.conv, { limit: PAGE, before: olderCursor.value });
    if (gen !== generation) return 0;
    messages.value = [...page.messages, ...messages.value];
    olderCursor.value = page.before;
    if (!readMarker.value) readMarker.value = placeMarker();
    return page.messages.length;
  } catch (e) {
    loadError.value = (e as Error).message;
    return 0;
  } finally {
    if (gen === generation) loading.value = false;
  }
}

/** Loads newer pages until the live end (after a jump, or after the socket reconnects). */
export async function loadNewer(): Promise<void> {
  const o = openConv.value;
  if (!o) return;
  const gen = generation;
  const last = [...messages.value].reverse().find((m) => !m.event)?.ts;
  if (!last) {
    await openConversation(o.cid, o.conv);
    return;
  }
  let after: string | undefined = last;
  while (after && gen === generation) {
    const page = await history(o.cid, o.conv, { limit: 200, after });
    if (gen !== generation) return;
    const seen = new Set(messages.value.map((m) => m.ts));
    messages.value = [...messages.value, ...page.messages.filter((m) => !seen.has(m.ts))];
    after = page.after;
  }
  newerCursor.value = undefined;
}

/**
 * Lines kept while the reader follows the newest one: a busy channel would otherwise grow the list
 * (and the work of every line after) for as long as it stays open. Past the limit by a page, the
 * oldest go, to be paged in again by scrolling up.
 */
const LIVE_KEEP = 240;
/** Whether the reader follows the newest line; the message list says, while it is shown. */
let following: () => boolean = () => false;

/** Lets the message list say whether its reader follows the newest line; returns the undo. */
export function followWith(f: () => boolean): () => void {
  following = f;
  return () => {
    if (following === f) following = () => false;
  };
}

/** Live lines not yet in the list: they go in together, once a frame. */
let arriving: Message[] = [];
/** The generation the arriving lines were for; -1 when none wait. */
let arrivingFor = -1;

/**
 * Appends a live message or event line to the open conversation (unless viewing the past). Lines
 * go in at the next frame, all that came before it at once: a render and a layout for each line of
 * a burst (a netsplit's quits, a busy channel) cost the page more than it could do.
 */
export function appendLive(m: Message): void {
  if (arrivingFor === generation) {
    arriving.push(m);
    return;
  }
  // Lines still waiting for a conversation left since are not this one's.
  const asked = arrivingFor >= 0;
  arriving = [m];
  arrivingFor = generation;
  if (asked) return;
  requestAnimationFrame(takeArriving);
  // A hidden page has no frames.
  setTimeout(takeArriving, 100);
}

/** Puts the arriving lines in the list, unless another conversation was opened since. */
function takeArriving(): void {
  if (arrivingFor < 0) return;
  const batch = arriving;
  const gen = arrivingFor;
  arriving = [];
  arrivingFor = -1;
  if (gen !== generation || newerCursor.value) return; // a jump shows the past
  let list = [...messages.value];
  let late = false;
  for (const m of batch) {
    if (!m.event && list.some((x) => x.ts === m.ts && x.from === m.from && !x.event)) continue;
    // An event line with its stored time that a page of history brought already.
    if (m.event && list.some((x) => x.ts === m.ts && (x.event ?? x.type) === m.event)) continue;
    // A line older than the newest shown (the server's history of a gap, filled in) goes in
    // its place.
    late ||= list.length > 0 && m.ts < list[list.length - 1].ts;
    list.push(m);
  }
  if (late) list = byTime(list);
  // Not while a page loads: it goes in front of the first line it was asked before.
  if (list.length > LIVE_KEEP + PAGE && !loading.value && !focusTs.value && following()) {
    const kept = list.slice(list.length - LIVE_KEEP);
    olderCursor.value = kept[0].ts;
    messages.value = kept;
    return;
  }
  messages.value = list;
}

let readTimer: ReturnType<typeof setTimeout> | undefined;
/** Marks the conversation read (debounced), clearing its unread count and mentions; `force`
 * tells the server even when the count shown is already 0 (a live message the user saw). */
export function markRead(cid: string, conv: string, force = false): Promise<void> {
  clearTimeout(readTimer);
  return new Promise((resolve) => {
    readTimer = setTimeout(async () => {
      const k = key(cid, conv);
      const c = conversations.value[k];
      // Left within the debounce: what arrives from now on is not read, and a request sent now
      // would reach the server after it and mark it read.
      if (!isOpen(cid, conv)) return resolve();
      // A conversation closed meanwhile has nothing to mark.
      if (conv !== "" && c && (force || c.unread || mentions.value[k])) {
        patchConversation(cid, conv, { unread: 0 });
        if (mentions.value[k]) {
          const next = { ...mentions.value };
          delete next[k];
          mentions.value = next;
        }
        await api("markConversationAsRead", {
          params: { connection_id: cid, conversation_id: conv },
        }).catch((err) => console.warn("not marked read on the server", err));
      }
      resolve();
    }, 150);
  });
}

/** Forgets the open conversation (when leaving the chat screen). */
export function closeConversation(): void {
  generation++;
  openConv.value = null;
  messages.value = [];
}
