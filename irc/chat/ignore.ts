/**
 * Ignoring people: a user's masks (store/ignores.ts) applied to what IRC brings. An ignored
 * person's messages, notices and actions are dropped as they arrive, never stored: so they are not
 * shown on any device, not in history, not unread and never a notification or a push. Lines
 * stored before the ignore are hidden from history pages by nick.
 */
import type { Store } from "../../store/mod.ts";
import type { MessageJson, MessagePage } from "../../protocol/messages.ts";
import { MAX_IGNORES } from "../../store/ignores.ts";
import { invalid } from "../../lib/errors.ts";
import { boundedCache } from "../../lib/bounded_cache.ts";
import { isPlainNick, maskMatches, normalizeMask, type Who } from "../mask.ts";

/**
 * Each user's masks, read again whenever any list changes (its generation moves). Bounded, the
 * user asked for longest ago going first: a busy user's list stays while others come and go.
 */
const cache = boundedCache<number, { generation: number; masks: string[] }>(10_000);

/** The masks `userId` ignores, from the cache while no list changed. */
export async function ignoredMasks(store: Pick<Store, "ignores">, userId: number) {
  const generation = store.ignores.generation;
  const hit = cache.get(userId);
  if (hit && hit.generation === generation) return hit.masks;
  const masks = await store.ignores.list(userId);
  cache.set(userId, { generation, masks });
  return masks;
}

/**
 * Whether `who` is on the list of `userId`. Synchronous while the list is cached: every chat line
 * of a burst asks.
 */
export function isIgnored(
  store: Pick<Store, "ignores">,
  userId: number,
  who: Who,
): boolean | Promise<boolean> {
  const hit = cache.get(userId);
  const test = (masks: string[]) => masks.length > 0 && masks.some((m) => maskMatches(m, who));
  if (hit && hit.generation === store.ignores.generation) return test(hit.masks);
  return ignoredMasks(store, userId).then(test);
}

const SAID = new Set<MessageJson["type"]>(["private", "notice", "action"]);

/**
 * A history page without what ignored people said before they were ignored: only their nick was
 * stored, so a mask naming an ident or host does not hide those.
 */
export function withoutIgnored(page: MessagePage, masks: readonly string[]): MessagePage {
  if (!masks.length) return page;
  const hidden = (m: MessageJson) =>
    SAID.has(m.type) && masks.some((mask) => maskMatches(mask, { nick: m.from }));
  return { ...page, messages: page.messages.filter((m) => !hidden(m)) };
}

/**
 * Adds what the user typed (a nick or a mask) to their list and returns its mask. `at` points at
 * the input for errors; `ownNicks` are the user's nicks, which they cannot ignore.
 */
export async function ignore(
  store: Pick<Store, "ignores">,
  userId: number,
  typed: string,
  at: string,
  ownNicks: readonly string[] = [],
): Promise<{ mask: string; added: boolean }> {
  const mask = normalizeMask(typed);
  if (!mask) throw invalid(`Not a nick or mask: ${typed.slice(0, 50)}`, at);
  if (ownNicks.some((nick) => maskMatches(mask, { nick }) && isPlainNick(typed))) {
    throw invalid("You cannot ignore yourself.", at);
  }
  const done = await store.ignores.add(userId, mask);
  if (done === "full") throw invalid(`At most ${MAX_IGNORES} people can be ignored.`, at);
  return { mask, added: done === "added" };
}

/** Removes what the user typed (a nick or a mask, as `ignore` read it) from their list. */
export async function unignore(
  store: Pick<Store, "ignores">,
  userId: number,
  typed: string,
  at: string,
): Promise<string> {
  const mask = normalizeMask(typed);
  if (!mask) throw invalid(`Not a nick or mask: ${typed.slice(0, 50)}`, at);
  if (!(await store.ignores.remove(userId, mask))) {
    throw invalid(`${mask} is not on your ignore list.`, at);
  }
  return mask;
}
