/**
 * The PostgreSQL message store: the MessageStore core and the search capability (PostgreSQL's
 * own full-text search). Appends run one after another, so each sees the timestamps handed out
 * before it; reads wait for the appends before them. No notifications capability yet.
 */
import { log } from "../../lib/log.ts";
import { nowMicros } from "../../lib/time.ts";
import { parseMatch } from "../match.ts";
import {
  type Appended,
  type MessageSearch,
  type MessageStore,
  type NewMessage,
  TYPE_CODE,
} from "../message_types.ts";
import { MAX_TEXT } from "../messages/writer.ts";
import { ARRIVAL_WINDOW, MAX_TS, MAX_TS_PROBES, MS, validTs } from "../messages/timestamps.ts";
import { connectPg, migratePg, type Sql } from "./db.ts";
import { pgPages } from "./paging.ts";
import { pgUserSearch } from "./search.ts";
import { toTsquery, tsvectorOf } from "./tsquery.ts";

/** The PostgreSQL message store, with search, and the pool it holds. */
export interface PgMessageStore extends MessageStore {
  readonly search: MessageSearch;
  /** Waits for the appends under way and closes the pool. */
  close(): Promise<void>;
}

/** At most MAX_TEXT UTF-16 code units, never ending in half a surrogate pair (as SQLite's writer). */
function storedText(text: string): string {
  if (text.length <= MAX_TEXT) return text;
  const cut = text.slice(0, MAX_TEXT);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** Connects to `url`, applies the migrations and returns the message store. */
export async function openPgMessageStore(url: string): Promise<PgMessageStore> {
  const sql = connectPg(url);
  try {
    await migratePg(sql);
  } catch (err) {
    await sql.end();
    throw err;
  }
  return pgMessageStore(sql);
}

/** The message store over a migrated database. */
export function pgMessageStore(sql: Sql): PgMessageStore {
  const pages = pgPages(sql);
  const searchAll = pgUserSearch(sql);
  /** The newest timestamp handed out per conversation (as store/messages/timestamps.ts). */
  const lastTs = new Map<number, number>();
  /** The appends under way, in order. */
  let queue: Promise<unknown> = Promise.resolve();

  /** The conversation's newest stored time within the storable range. */
  async function newest(conversation: number): Promise<number> {
    const [row] = await sql`SELECT max(ts) AS ts FROM messages
      WHERE conversation = ${conversation} AND ts BETWEEN 0 AND ${MAX_TS}`;
    return row?.ts ?? 0;
  }

  /** The first free millisecond from `ts` on, among the next MAX_TS_PROBES. */
  async function freeFrom(conversation: number, ts: number): Promise<number | undefined> {
    const taken = new Set(
      (await sql`SELECT ts FROM messages WHERE conversation = ${conversation}
        AND ts >= ${ts} AND ts < ${ts + MAX_TS_PROBES * MS}`).map((r) => r.ts as number),
    );
    for (let i = 0; i < MAX_TS_PROBES; i++, ts += MS) if (!taken.has(ts)) return ts;
    return undefined;
  }

  /** The same rules as the SQLite writer's uniqueTs (store/messages/timestamps.ts). */
  async function uniqueTs(conversation: number, wanted: number): Promise<number> {
    const last = lastTs.get(conversation) ?? await newest(conversation);
    let ts = validTs(wanted) ? wanted : nowMicros();
    ts -= ts % MS;
    if (ts <= last) {
      const next = last - (last % MS) + MS;
      if (last - ts < ARRIVAL_WINDOW) ts = next;
      else {
        const free = await freeFrom(conversation, ts);
        ts = free !== undefined && free < last ? free : next;
      }
    }
    lastTs.set(conversation, Math.max(last, ts));
    return ts;
  }

  async function write(msg: NewMessage): Promise<Appended> {
    const ts = await uniqueTs(msg.conversation, msg.ts ?? nowMicros());
    const text = storedText(msg.text);
    // The message and its conversation's unread count in one statement, so both or neither.
    const [row] = await sql`WITH added AS (
        INSERT INTO messages (conversation, user_id, ts, type, highlight, sender, text, words)
        VALUES (${msg.conversation}, ${msg.userId}, ${ts}, ${TYPE_CODE[msg.type] ?? 0},
          ${msg.highlight ? true : false}, ${msg.from.slice(0, 100)}, ${text},
          ${tsvectorOf(text)}::tsvector)
        RETURNING conversation)
      UPDATE conversations SET unread = unread + 1
        WHERE id = (SELECT conversation FROM added) AND ${msg.unread ? true : false}
        RETURNING unread`;
    return msg.unread ? { ts, unread: row?.unread ?? 0 } : { ts };
  }

  /** Resolves once every append queued so far has been written (or has failed). */
  const settled = () => queue.then(() => {}, () => {});

  return {
    append(msg) {
      // As the SQLite writer: a row that cannot be stored (its conversation deleted meanwhile)
      // is logged and dropped, never an unhandled rejection in the IRC code.
      const done = queue.then(() => write(msg)).catch((err) => {
        log.warn("message dropped", { conversation: msg.conversation, error: String(err) });
        return { ts: msg.ts ?? nowMicros() };
      });
      queue = done.catch(() => {});
      return done;
    },
    flush: settled,
    async historyOf(conversation, q) {
      await settled();
      return pages.history(conversation, q);
    },
    async clear(conversation) {
      await settled();
      await sql`DELETE FROM messages WHERE conversation = ${conversation}`;
    },
    search: {
      async forUser(userId, q) {
        await settled();
        return searchAll(userId, q);
      },
      async inConversation(conversation, match, q) {
        await settled();
        const parsed = parseMatch(match);
        if (parsed.empty) return { messages: [] };
        if (parsed.fts === undefined) return pages.history(conversation, q); // only `#name`/`@nick`
        return pages.matching(conversation, toTsquery(parsed.terms), q);
      },
    },
    async close() {
      await settled();
      await sql.end();
    },
  };
}
