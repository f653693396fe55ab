/**
 * What the writer reads once per conversation, the first time it takes one of its messages: the
 * newest stored time (for the timestamp rule) and the stored unread count. The conversations
 * first seen while one read is under way are read together in the next: when thousands of
 * connections join their channels at once, each new conversation was a round trip of its own,
 * one after the other.
 */
import { MAX_TS } from "../timestamps.ts";
import type { Sql } from "./db.ts";
import { answered, unanswered } from "./unanswered.ts";

/** A conversation as first seen. */
interface Sighted {
  newest: number;
  unread: number;
}

/** Most conversations in one read. */
const PER_READ = 1000;

/**
 * Reads conversations' first sight, gathered. While the database does not answer (restarting),
 * a read is tried again once it does, unless `givenUp` says the store is closing.
 */
export function firstSight(
  sql: Sql,
  givenUp: () => boolean = () => false,
): (conversation: number) => Promise<Sighted> {
  let waiting = new Map<number, PromiseWithResolvers<Sighted>[]>();
  let reading = false;

  async function read(ids: number[]): Promise<Map<number, Sighted>> {
    for (;;) {
      try {
        return await readOnce(ids);
      } catch (err) {
        if (!unanswered(err) || !await answered(sql, givenUp)) throw err;
      }
    }
  }

  async function readOnce(ids: number[]): Promise<Map<number, Sighted>> {
    // The newest time walks the (conversation, ts) index backwards from the bound, a row each.
    const rows = await sql<{ id: number; unread: number; newest: number | null }[]>`
      SELECT v.id, v.unread, (SELECT max(m.ts) FROM messages m
        WHERE m.conversation = v.id AND m.ts BETWEEN 0 AND ${MAX_TS}) AS newest
      FROM conversations v WHERE v.id = ANY(${ids}::bigint[])`;
    return new Map(rows.map((r) => [r.id, { newest: r.newest ?? 0, unread: r.unread }]));
  }

  async function drain() {
    reading = true;
    try {
      while (waiting.size) {
        const batch = waiting;
        waiting = new Map();
        const ids = [...batch.keys()];
        for (let i = 0; i < ids.length; i += PER_READ) {
          const part = ids.slice(i, i + PER_READ);
          try {
            const found = await read(part);
            // A conversation removed meanwhile: nothing stored, its rows will be refused.
            for (const id of part) {
              for (const w of batch.get(id)!) w.resolve(found.get(id) ?? { newest: 0, unread: 0 });
            }
          } catch (err) {
            for (const id of part) for (const w of batch.get(id)!) w.reject(err);
          }
        }
      }
    } finally {
      reading = false;
    }
  }

  return (conversation) => {
    const w = Promise.withResolvers<Sighted>();
    const list = waiting.get(conversation);
    if (list) list.push(w);
    else waiting.set(conversation, [w]);
    if (!reading) drain();
    return w.promise;
  };
}
