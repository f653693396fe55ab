/**
 * A conversation's notification level and its draft, both kept on the server: the level decides
 * what notifies and what the tab's title counts; the draft is the half-typed line, saved a moment
 * after the typing stops, so that it follows the user to another device.
 */
import { api } from "./api.ts";
import { conversations, key, patchConversation } from "./state.ts";
import type { Conversation } from "./types.ts";
import { MAX_DRAFT, type NotifyLevel } from "../../protocol/limits.ts";

/** The level in effect (the server says; before it has, the default). */
export function notifyOf(c: Pick<Conversation, "conversation_id" | "notify">): NotifyLevel {
  return c.notify ?? (/^[#&!+]/.test(c.conversation_id) ? "mentions" : "all");
}

/** Chooses a level; the sidebar and title follow at once, the server keeps it. */
export async function setNotify(cid: string, conv: string, level: NotifyLevel): Promise<void> {
  const before = conversations.value[key(cid, conv)]?.notify;
  patchConversation(cid, conv, { notify: level });
  try {
    await api("setConversationNotify", {
      params: { connection_id: cid, conversation_id: conv },
      body: { notify: level },
    });
  } catch (e) {
    patchConversation(cid, conv, { notify: before });
    throw e;
  }
}

/**
 * Detaches a channel from IRC clients (it stays joined and kept) or reattaches it; the sidebar
 * follows at once (dimmed, at the end of its network's list), the server keeps it.
 */
export async function setDetached(cid: string, conv: string, detached: boolean): Promise<void> {
  const before = conversations.value[key(cid, conv)]?.detached;
  patchConversation(cid, conv, { detached });
  try {
    await api("setConversationDetached", {
      params: { connection_id: cid, conversation_id: conv },
      body: { detached },
    });
  } catch (e) {
    patchConversation(cid, conv, { detached: before });
    throw e;
  }
}

/** Detached channels after the rest, each part in its own order (a stable sort). */
export function detachedLast<C extends { detached?: boolean }>(list: C[]): C[] {
  return [...list.filter((c) => !c.detached), ...list.filter((c) => c.detached)];
}

/** How long typing must pause before the draft is saved. */
const SAVE_AFTER_MS = 800;

let pending:
  | { cid: string; conv: string; text: string; timer: ReturnType<typeof setTimeout> }
  | undefined;

/**
 * The saves, one after another: two saves in flight at once may reach the server in either order
 * (a slow answer, another of the browser's connections), and a line's text saved just before it
 * was sent would then land after the "" that cleared it, and come back as the draft.
 */
let saving: Promise<void> = Promise.resolve();
/** The conversation and text of the last save queued, while it is still queued or under way. */
let last: string | undefined;

function save(cid: string, conv: string, text: string): Promise<void> {
  // A sent line clears its draft twice over (the box emptied, then the send's answer): the same
  // text right behind itself would change nothing.
  const k = key(cid, conv);
  const mine = k + "\n" + text;
  if (last === mine) return saving;
  last = mine;
  saving = saving.then(async () => {
    // Closed meanwhile (its line was /close): it has no draft any more.
    if (conv !== "" && !conversations.value[k]) return;
    try {
      await api("saveConversationDraft", {
        params: { connection_id: cid, conversation_id: conv },
        body: { draft: text.slice(0, MAX_DRAFT) },
      });
    } catch (err) {
      // A draft is a convenience: the text stays in the box whatever the server said.
      console.warn("draft not saved", err);
    }
  }).finally(() => {
    if (last === mine) last = undefined;
  });
  return saving;
}

/** Saves the waiting draft now (when the user moves to another conversation or sends). */
export function flushDraft(): Promise<void> {
  const p = pending;
  pending = undefined;
  if (!p) return Promise.resolve();
  clearTimeout(p.timer);
  return save(p.cid, p.conv, p.text);
}

/** Saves `text` as the conversation's draft once typing pauses. */
export function draftChanged(cid: string, conv: string, text: string): void {
  if (pending && (pending.cid !== cid || pending.conv !== conv)) void flushDraft();
  if (pending) clearTimeout(pending.timer);
  pending = { cid, conv, text, timer: setTimeout(() => void flushDraft(), SAVE_AFTER_MS) };
}

/** Clears the conversation's draft at once (its line was sent). */
export function clearDraft(cid: string, conv: string): Promise<void> {
  if (pending?.cid === cid && pending.conv === conv) {
    clearTimeout(pending.timer);
    pending = undefined;
  }
  return save(cid, conv, "");
}

/** The conversation's draft as the server keeps it ("" when none or unreachable). */
export async function loadDraft(cid: string, conv: string): Promise<string> {
  // After the saves under way, or it could read what one of them is about to replace.
  await saving;
  try {
    const r = await api("getConversationDraft", {
      params: { connection_id: cid, conversation_id: conv },
    });
    return r.draft;
  } catch {
    return "";
  }
}
