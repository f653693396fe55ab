/**
 * The user's display choices: theme, compact layout, clock, seconds, previews, how joins and parts
 * show (for all, per connection, per conversation), the nick completion suffix and the pinned
 * conversations. The server keeps them for the user, so every device has them; a change on one
 * device reaches the others live (the `client_settings` event). This browser keeps a copy for the
 * first paint, before the server has answered. The settings screens' own changes are in
 * settings_edit.ts, loaded with them.
 */
import { computed, effect, signal } from "@preact/signals";
import { api } from "./api.ts";
import { conversations, key, showToast, socketState, user } from "./state.ts";
import { applyTheme } from "./theme.ts";
import { nickSuffix } from "./nick_suffix.ts";
import {
  type ClientSettings,
  type ClientSettingsChange,
  DEFAULT_CLIENT_SETTINGS,
  type JoinParts,
} from "../../protocol/client_settings.ts";

export type { ClientSettings, JoinParts };

const CACHE = "parley.settings";

/** The copy this browser kept, else the choices it kept one by one before the server kept them. */
function cached(): Partial<ClientSettings> {
  try {
    const v = JSON.parse(localStorage.getItem(CACHE) ?? "null");
    if (v && typeof v === "object") return v;
  } catch { /* why: not JSON (never ours): read the older keys */ }
  const get = (name: string) => localStorage.getItem(`parley.${name}`);
  const out: Record<string, unknown> = { embeds: get("embeds") !== "off" };
  for (const k of ["compact", "clock24", "seconds"]) {
    if (get(k) !== null) out[k] = get(k) === "on";
  }
  const jp = get("joinParts");
  const theme = get("theme");
  if (jp === "show" || jp === "hide" || jp === "condense") out.join_parts = jp;
  if (theme === "light" || theme === "dark") out.theme = theme;
  return out;
}

// The newest copy the server gave this page (this browser's until it has), and this page's saves
// still on their way, shown over it. The socket tells this device of its own saves too, possibly
// after their answers, and of two devices' saves in either order: an older copy must not undo a
// newer change, and no copy may hide a change still being saved.
const told = signal<Partial<ClientSettings>>(cached());
const saving = signal<ClientSettingsChange[]>([]);
let newest = -1;

/** Every choice, as the server last said (or this browser's copy until it has). */
export const settings = computed<ClientSettings>(() =>
  Object.assign({ ...DEFAULT_CLIENT_SETTINGS, ...told.value }, ...saving.value)
);

/** One line per message with a fixed nick column, as classic IRC clients show them. */
export const compact = computed(() => settings.value.compact);
/** Times as 14:05 rather than 2:05 PM, whatever the language. */
export const clock24 = computed(() => settings.value.clock24);
/** Times with seconds. */
export const seconds = computed(() => settings.value.seconds);
/** Joins, parts, quits and nick changes: each shown, runs collapsed (the default), or hidden. */
export const joinParts = computed(() => settings.value.join_parts);

// Applied wherever they came from: this device, another one, the server at start.
effect(() => {
  const s = settings.value;
  localStorage.setItem(CACHE, JSON.stringify(s));
  // Read by the previews, which are not signals.
  localStorage.setItem("parley.embeds", s.embeds ? "on" : "off");
  applyTheme(s.theme);
  nickSuffix.value = s.nick_suffix;
});

/** Settings told by the server: kept unless this page has had the same or a newer revision. */
export function applySettings(s: ClientSettings): void {
  if (s.revision > newest) {
    newest = s.revision;
    told.value = s;
  }
}

async function load(): Promise<void> {
  // The answer counts even with a smaller revision than this page had (the data restored from a
  // backup, or another user's): only a copy told while it is on its way is newer.
  newest = -1;
  try {
    applySettings(await api("getClientSettings"));
  } catch (err) {
    console.warn("settings not loaded", err);
  }
}

/** Changes some settings: applied here at once, kept by the server, told to the other devices. */
export async function saveSettings(change: ClientSettingsChange): Promise<void> {
  saving.value = [...saving.value, change];
  try {
    applySettings(await api("saveClientSettings", { body: change }));
  } catch (e) {
    showToast((e as Error).message);
  } finally {
    saving.value = saving.value.filter((c) => c !== change);
  }
}

// Asked for once logged in, and again after each reconnection (a change may have been missed).
const who = computed(() => user.value?.email);
effect(() => {
  if (who.value && socketState.value === "open") void load();
});

/** How joins and parts show in a conversation: its own choice, its connection's, or the default. */
export function joinPartsFor(cid: string, conv: string): JoinParts {
  const s = settings.value;
  return s.join_parts_conversations.find((x) =>
    x.connection_id === cid && x.conversation_id === conv
  )?.join_parts ??
    s.join_parts_networks.find((x) => x.connection_id === cid)?.join_parts ??
    s.join_parts;
}

/** Where a conversation is among the pinned ones (-1: not pinned). */
export function pinnedIndex(cid: string, conv: string): number {
  return settings.value.pinned.findIndex((x) =>
    x.connection_id === cid && x.conversation_id === conv
  );
}

/** The conversations with the pinned ones first, in the order they were pinned; the rest keep theirs. */
export function pinnedFirst<C extends { connection_id: string; conversation_id: string }>(
  list: C[],
): C[] {
  const at = (c: C) => {
    const i = pinnedIndex(c.connection_id, c.conversation_id);
    return i < 0 ? Infinity : i;
  };
  // A stable sort: the unpinned keep the sidebar's order.
  return [...list].sort((a, b) => (at(a) === at(b) ? 0 : at(a) < at(b) ? -1 : 1));
}

/** Pins a conversation (after those pinned before) or unpins it. */
export function setPinned(cid: string, conv: string, on: boolean): Promise<void> {
  // Conversations closed since they were pinned are let go here.
  const rest = settings.value.pinned.filter((x) =>
    (x.connection_id !== cid || x.conversation_id !== conv) &&
    conversations.value[key(x.connection_id, x.conversation_id)]
  );
  return saveSettings({
    pinned: on ? [...rest, { connection_id: cid, conversation_id: conv }] : rest,
  });
}
// Building an Intl formatter is slow (far slower than formatting): one per set of choices.
const formats = new Map<string, Intl.DateTimeFormat>();

/** A cached formatter for `lang` and `opts`. */
export function formatter(lang: string, opts: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const k = lang + JSON.stringify(opts);
  let f = formats.get(k);
  if (!f) formats.set(k, f = new Intl.DateTimeFormat(lang, opts));
  return f;
}

/** The time of day of `ts` as the choices above say. */
export function timeOf(ts: string, lang: string): string {
  return formatter(lang, {
    hour: "2-digit",
    minute: "2-digit",
    second: seconds.value ? "2-digit" : undefined,
    hourCycle: clock24.value ? "h23" : "h12",
  }).format(new Date(ts));
}

/** Date and time of `ts`, for a tooltip, with the clock chosen above. */
export function dateTimeOf(ts: string, lang: string): string {
  return formatter(lang, {
    dateStyle: "medium",
    timeStyle: "medium",
    hourCycle: clock24.value ? "h23" : "h12",
  }).format(new Date(ts));
}

/** The day and time of `ts` for lists (notifications, search), with the clock chosen above. */
export function dayTimeOf(ts: string, lang: string): string {
  return formatter(lang, { dateStyle: "medium" }).format(new Date(ts)) + " " + timeOf(ts, lang);
}
