/**
 * Unread counts kept by the PostgreSQL writer. Each conversation's count is read once, when the
 * writer first sees the conversation, and kept in memory after: a channel line for hundreds of
 * users counts in hundreds of conversations, and reading each one's stored count again every write
 * window was a round trip per row (under 5,000 rows a second). The writer adds its batches' counts
 * relative to what is stored (`unread = unread + n`), so the database stays right whatever this
 * memory believes; what the memory gives is the count an `unread` event tells the user.
 *
 * What sets a count outright (mark as read, a read marker) tells the writer of its node at once
 * and every other node by a notification sent in its transaction; a node ignores its own.
 */
import type { Sql } from "./db.ts";

/** The channel on which nodes say that conversations' unread counts were set. */
export const UNREAD_SET = "parley_unread_set";
/** The channel on which nodes say that counts were lowered by deleted messages (retention). */
export const UNREAD_LOWERED = "parley_unread_lowered";
/** Counts in one notification: PostgreSQL refuses a payload over 8,000 bytes. */
const PER_NOTIFICATION = 300;

/** A conversation's row id and its stored unread count. */
export type UnreadEntry = [conversation: number, unread: number];

/** The counts, and the window's additions that the next batch saves. */
export class UnreadCounts {
  /** This node's mark on its notifications. */
  readonly origin = crypto.randomUUID();
  /**
   * Per conversation seen: the count with every message taken so far (a number a conversation,
   * as the timestamp rule keeps its newest time).
   */
  #counts = new Map<number, number>();
  /** Per conversation: unread messages taken since the last batch was cut. */
  #window = new Map<number, number>();

  /** The stored count read at first sight (nothing of this writer's is pending for it then). */
  start(conversation: number, stored: number): void {
    if (!this.#counts.has(conversation)) this.#counts.set(conversation, stored);
  }

  /** The conversations whose count is kept. */
  known(): number[] {
    return [...this.#counts.keys()];
  }

  /** The count the next unread message adds to (undefined: not read yet). */
  count(conversation: number): number | undefined {
    return this.#counts.get(conversation);
  }

  /** Counts one more unread message; returns the conversation's count with it. */
  add(conversation: number): number {
    const n = (this.#counts.get(conversation) ?? 0) + 1;
    this.#counts.set(conversation, n);
    this.#window.set(conversation, (this.#window.get(conversation) ?? 0) + 1);
    return n;
  }

  /** The window's additions, for the batch being cut; counting the next window starts over. */
  take(): Map<number, number> {
    const out = this.#window;
    this.#window = new Map();
    return out;
  }

  /**
   * Counts set outright in the database: the writer's additions not yet cut into a batch still
   * come on top. (A batch under way while the count was set may land before or after it; the
   * next event then tells a count that far off, as the stored one is right.)
   */
  set(entries: Iterable<UnreadEntry>): void {
    for (const [conversation, unread] of entries) {
      if (this.#counts.has(conversation)) {
        this.#counts.set(conversation, unread + (this.#window.get(conversation) ?? 0));
      }
    }
  }

  /** A notification's payload from another node, applied (its own are ignored). */
  told(payload: string): void {
    const [origin, list = ""] = payload.split("|");
    if (origin === this.origin) return;
    this.set(parseEntries(list));
  }

  /**
   * Counts lowered by unread messages deleted (entries give how many each): relative, unlike
   * `set`, so what a batch under way adds still comes on top, whichever commits first.
   */
  lower(entries: Iterable<UnreadEntry>): void {
    for (const [conversation, n] of entries) {
      const count = this.#counts.get(conversation);
      if (count !== undefined) this.#counts.set(conversation, Math.max(count - n, 0));
    }
  }

  /** A lowering from another node, applied (its own are ignored). */
  toldLowered(payload: string): void {
    const [origin, list = ""] = payload.split("|");
    if (origin === this.origin) return;
    this.lower(parseEntries(list));
  }
}

/** Adds a batch's counts in the caller's transaction, one statement for all of them. */
export async function saveUnread(tx: Sql, added: Map<number, number>): Promise<void> {
  if (!added.size) return;
  const ids = [...added.keys()].sort((a, b) => a - b);
  // Locked in id order first: two batches written at once then never wait on each other in a
  // cycle, whichever plan the UPDATE's join takes. The UPDATE's own lock mode: a stronger one
  // would wait on the key locks the other batch's message rows hold on their conversations.
  await tx`SELECT 1 FROM conversations WHERE id = ANY(${ids}::bigint[]) ORDER BY id
    FOR NO KEY UPDATE`;
  await tx`UPDATE conversations c SET unread = c.unread + v.n
    FROM unnest(${ids}::bigint[], ${ids.map((id) => added.get(id)!)}::int[]) AS v(id, n)
    WHERE c.id = v.id`;
}

/**
 * Tells the other nodes, at the commit of `tx`, the counts just set (or, on UNREAD_LOWERED, by
 * how much they were lowered).
 */
export async function notifyUnread(
  tx: Sql,
  origin: string,
  entries: UnreadEntry[],
  channel = UNREAD_SET,
): Promise<void> {
  for (let i = 0; i < entries.length; i += PER_NOTIFICATION) {
    const list = entries.slice(i, i + PER_NOTIFICATION).map(([c, n]) => `${c}:${n}`).join(",");
    await tx`SELECT pg_notify(${channel}, ${`${origin}|${list}`})`;
  }
}

/** `12:0,15:3` as entries; anything malformed is skipped. */
function parseEntries(list: string): UnreadEntry[] {
  const out: UnreadEntry[] = [];
  for (const item of list.split(",")) {
    const [c, n] = item.split(":").map(Number);
    if (Number.isSafeInteger(c) && Number.isSafeInteger(n)) out.push([c, n]);
  }
  return out;
}
