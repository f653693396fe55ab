/** Messages: the batched writer, history pages, search, and notifications. */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { formatMicros, nowMicros } from "../lib/time.ts";
import { log } from "../lib/log.ts";
import { fold, hasWordPrefixes, MIN_PREFIX, parseMatch, type Term, termFts } from "./match.ts";
import { ircLower } from "../irc/casefold.ts";
import type { SearchIndexer } from "./search_index.ts";
import type { Checkpointer } from "./checkpointer.ts";
import { userIndex } from "./search_file.ts";
import {
  FIRST_EVENT_CODE,
  type HistoryQuery,
  type MessageJson,
  type MessagePage,
  type MessageStore,
  type NewMessage,
  type SearchQuery,
  TYPE_CODE,
  TYPES,
} from "./message_types.ts";

/**
 * How long the writer gathers messages before committing them in one transaction. Each commit
 * also writes a search-index segment, so committing every message of a quiet channel on its
 * own makes segment merges frequent; a crash loses at most this much.
 */
const WRITE_WINDOW_MS = 10;
/** Most messages the write window commits per turn of the event loop (see flushSoon). */
const WINDOW_BATCH = 1000;
/** Rows sampled to decide how to look up a long prefix (see planTerms). */
const SAMPLE = 200;
/** A millisecond in microseconds: the resolution of stored timestamps (see uniqueTs). */
const MS = 1000;

/**
 * A message this much older than the conversation's newest is filed after it, in arrival order
 * (a burst spread a millisecond apart runs ahead of the clock); an older one is a replay and
 * keeps its own time.
 */
const ARRIVAL_WINDOW = 1_000_000;

/** Most index rows a search reads at once while looking for rows that pass its filters. */
const MAX_CHUNK = 5000;
/** How often the writer has the WAL checkpointed while messages keep coming. */
const CHECKPOINT_EVERY_MS = 1000;
/** Longest the writer holds commits back for a checkpoint (they wait in memory meanwhile). */
const CHECKPOINT_HOLD_MS = 250;
/**
 * Latest timestamp stored (microseconds, about the year 2255): far below 2^53, so `ts + 1` and
 * every cursor computed from a stored time stay exact integers.
 */
const MAX_TS = Number.MAX_SAFE_INTEGER - 2 ** 40;
/** Most microseconds tried when looking for a free one in the past. */
const MAX_TS_PROBES = 100;

/** Longest message text stored, in UTF-16 code units; the rest is cut off. */
export const MAX_TEXT = 10_000;

/** The text as stored: at most MAX_TEXT code units, never half a surrogate pair. */
function capText(text: string): string {
  if (text.length <= MAX_TEXT) return text;
  const cut = text.slice(0, MAX_TEXT);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** Whether a wanted timestamp can be stored as it is. */
function validTs(ts: number): boolean {
  return Number.isSafeInteger(ts) && ts >= 0 && ts <= MAX_TS;
}

interface Row {
  id: number;
  ts: number;
  type: number;
  highlight: number;
  sender: string;
  text: string;
  connection_id?: string;
  conversation_id?: string;
}

/** See `countUnread`. */
interface UnreadWindow {
  base: number;
  added: number;
}

interface Pending {
  conversation: number;
  userId: number;
  ts: number;
  type: number;
  highlight: number;
  sender: string;
  text: string;
}

function toJson(row: Row): MessageJson {
  const out: MessageJson = {
    from: row.sender,
    message: row.text,
    ts: formatMicros(row.ts),
    type: TYPES[row.type] ?? "private",
  };
  if (row.highlight) out.highlight = true;
  if (row.connection_id !== undefined) out.connection_id = row.connection_id;
  if (row.conversation_id !== undefined) out.conversation_id = row.conversation_id;
  return out;
}

/** An FTS5 query for `text` in the text column, restricted to `scope` tokens when given. */
function scoped(text: string, scope?: string): string {
  return scope ? `scope : ${scope} AND text : (${text})` : `text : (${text})`;
}

const COLUMNS = "m.id, m.ts, m.type, m.highlight, m.sender, m.text";
const WHERE_COLUMNS = `${COLUMNS}, k.connection_id, c.conversation_id`;
const JOIN_WHERE =
  "JOIN conversations c ON c.id = m.conversation JOIN connections k ON k.id = c.connection";

/**
 * The SQLite implementation of MessageStore. The search index lives in the attached `search`
 * schema and is written by the indexer's worker; this side appends messages and says how far.
 */
export function sqliteMessageStore(
  db: DatabaseSync,
  searchDb: DatabaseSync,
  indexer: SearchIndexer,
  checkpointer: Checkpointer,
): MessageStore & { dispose(): Promise<void> } {
  const insert = db.prepare(
    "INSERT INTO messages (id, conversation, user_id, ts, type, highlight, sender, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const saveNextId = db.prepare("UPDATE message_ids SET next = ?");
  const readNextId = db.prepare("SELECT next FROM message_ids");
  const trimDeletions = db.prepare("DELETE FROM message_deletions WHERE seq <= ?");
  // Rows stored before times were bounded may lie outside it; they must not push new ones out.
  const maxTs = db.prepare(
    "SELECT max(ts) AS ts FROM messages WHERE conversation = ? AND ts BETWEEN 0 AND ?",
  );
  const tsTaken = db.prepare("SELECT 1 AS x FROM messages WHERE conversation = ? AND ts = ?");
  const older = db.prepare(
    `SELECT ${COLUMNS} FROM messages m WHERE m.conversation = ? AND m.ts < ? AND m.ts > ? ORDER BY m.ts DESC LIMIT ?`,
  );
  const newer = db.prepare(
    `SELECT ${COLUMNS} FROM messages m WHERE m.conversation = ? AND m.ts > ? AND m.ts < ? ORDER BY m.ts ASC LIMIT ?`,
  );
  const anyOlder = db.prepare(
    "SELECT 1 AS x FROM messages WHERE conversation = ? AND ts < ? LIMIT 1",
  );
  const anyNewer = db.prepare(
    "SELECT 1 AS x FROM messages WHERE conversation = ? AND ts > ? LIMIT 1",
  );
  const notifications = db.prepare(
    `SELECT ${WHERE_COLUMNS} FROM messages m ${JOIN_WHERE}
     WHERE m.user_id = ? AND m.highlight = 1 AND m.ts < ? ORDER BY m.ts DESC LIMIT ?`,
  );
  const readMarker = db.prepare("SELECT last_ts FROM notification_reads WHERE user_id = ?");
  const unreadCount = db.prepare(
    "SELECT count(*) AS n FROM messages WHERE user_id = ? AND highlight = 1 AND ts > ?",
  );
  const lastHighlight = db.prepare(
    "SELECT max(ts) AS ts FROM messages WHERE user_id = ? AND highlight = 1",
  );
  const setMarker = db.prepare(
    `INSERT INTO notification_reads (user_id, last_ts) VALUES (?, ?)
     ON CONFLICT(user_id) DO UPDATE SET last_ts = max(last_ts, excluded.last_ts)`,
  );
  const clear = db.prepare("DELETE FROM messages WHERE conversation = ?");
  const hasIndex = searchDb.prepare(
    "SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?",
  );
  const ownerOf = db.prepare(
    "SELECT k.user_id FROM conversations c JOIN connections k ON k.id = c.connection WHERE c.id = ?",
  );
  db.function(
    "parley_word_prefixes",
    { deterministic: true },
    (text, prefixes) => hasWordPrefixes(String(text), String(prefixes).split(" ")) ? 1 : 0,
  );
  // Statements built from a query's shape are cached by their SQL text.
  const dynamic = new Map<string, StatementSync>();
  const prepared = (sql: string, on = db) => {
    let st = dynamic.get(sql);
    if (!st) dynamic.set(sql, st = on.prepare(sql));
    return st;
  };
  const textsOf = db.prepare(
    "SELECT text FROM messages WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id DESC",
  );

  /** Ids of the rows of `table` matching `fts`, newest first, below id `below`. */
  function matchingIds(table: string, fts: string, below: number, limit: number): number[] {
    const sql = `SELECT rowid AS id FROM ${table} WHERE ${table} MATCH ? AND rowid < ?
      ORDER BY rowid DESC LIMIT ?`;
    return (prepared(sql, searchDb).all(fts, below, limit) as { id: number }[]).map((r) => r.id);
  }

  const unreadOf = db.prepare("SELECT unread FROM conversations WHERE id = ?");
  const addUnread = db.prepare("UPDATE conversations SET unread = unread + ? WHERE id = ?");
  /**
   * Unread messages not yet committed, per conversation: the stored count when the first one came
   * (read once per conversation per batch, not per message) and how many came since. Reads of
   * conversations and mark-as-read commit first (`commit`), so none of them sees a stale count.
   */
  let unread = new Map<number, UnreadWindow>();

  function countUnread(conversation: number): number {
    let u = unread.get(conversation);
    if (!u) {
      const row = unreadOf.get(conversation) as { unread: number } | undefined;
      unread.set(conversation, u = { base: row?.unread ?? 0, added: 0 });
    }
    return u.base + ++u.added;
  }

  function saveUnread(window: Map<number, UnreadWindow>) {
    for (const [conversation, u] of window) addUnread.run(u.added, conversation);
  }

  const lastTs = new Map<number, number>();
  let pending: Pending[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Ids are assigned here and never reused (see migration 005), so the indexer can work from
  // "everything after id N".
  let nextId = (readNextId.get() as { next: number }).next;
  let trimmed = 0;

  function writeBatch(batch: Pending[], unreadAdded: Map<number, UnreadWindow>) {
    let first = nextId;
    const run = (p: Pending) => {
      insert.run(
        nextId++,
        p.conversation,
        p.userId,
        p.ts,
        p.type,
        p.highlight,
        p.sender,
        p.text,
      );
    };
    // The indexer's finished part of the deletion log goes in the same transaction.
    const trimTo = indexer.deletedUpTo();
    let together = false;
    db.exec("BEGIN IMMEDIATE");
    try {
      // Re-read inside the transaction: another process on the same file must not get the
      // same ids (one Parley per data folder is the rule; this keeps a mistake harmless).
      nextId = first = Math.max(nextId, (readNextId.get() as { next: number }).next);
      for (const p of batch) run(p);
      saveNextId.run(nextId);
      saveUnread(unreadAdded);
      if (trimTo > trimmed) trimDeletions.run(trimTo);
      db.exec("COMMIT");
      trimmed = Math.max(trimmed, trimTo);
      together = true;
    } catch (err) {
      db.exec("ROLLBACK");
      nextId = first;
      log.warn("message batch failed; writing one by one", { error: String(err) });
    }
    if (!together) {
      // One bad row (its conversation deleted meanwhile) must not lose the others.
      for (const p of batch) {
        try {
          run(p);
        } catch (err) {
          log.warn("message dropped", { conversation: p.conversation, error: String(err) });
        }
      }
      saveNextId.run(nextId);
      try {
        saveUnread(unreadAdded);
      } catch (err) {
        log.warn("unread counts not saved", { error: String(err) });
      }
    }
    indexer.committed(nextId - 1);
  }

  /** Commits up to `limit` pending messages (and every pending unread count). */
  function flushNow(limit = Infinity) {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (!pending.length) return;
    const batch = pending.length > limit ? pending.slice(0, limit) : pending;
    pending = pending.length > limit ? pending.slice(limit) : [];
    const unreadAdded = unread;
    unread = new Map();
    writeBatch(batch, unreadAdded);
    maybeCheckpoint();
    if (pending.length) timer = setTimeout(flushSoon, 0);
  }

  /**
   * The write window's flush: it waits while a checkpoint runs (reads flush at once), and commits
   * at most WINDOW_BATCH messages per turn of the event loop, so that a burst held back by a
   * checkpoint does not stop the IRC sockets from being read for tens of milliseconds.
   */
  function flushSoon() {
    timer = undefined;
    if (!checkpointing) flushNow(WINDOW_BATCH);
  }

  // The WAL can only start over when a checkpoint has copied all of it and no commit came in
  // between; under steady traffic that moment never comes by itself and the WAL grows without
  // bound. So once a second the writer asks the checkpoint worker to copy it and holds its own
  // commits back meanwhile (the messages are already published; they wait in memory), and the
  // next commit then starts the WAL over. The fsyncs happen on the worker's thread.
  let checkpointing = false;
  let lastCheckpoint = performance.now();
  let checkpointDone: Promise<void> = Promise.resolve();
  function maybeCheckpoint() {
    if (checkpointing || performance.now() - lastCheckpoint < CHECKPOINT_EVERY_MS) return;
    checkpointing = true;
    let hold: ReturnType<typeof setTimeout> | undefined;
    checkpointDone = new Promise<void>((resolve) => {
      const done = () => {
        if (hold !== undefined) clearTimeout(hold);
        if (!checkpointing) return resolve();
        checkpointing = false;
        lastCheckpoint = performance.now();
        if (pending.length) timer ??= setTimeout(flushSoon, 0);
        resolve();
      };
      hold = setTimeout(done, CHECKPOINT_HOLD_MS);
      checkpointer.checkpoint().then(done);
    });
  }

  /**
   * Commits what is pending and waits until the search index has it too; a search waits a
   * bounded time (see SearchIndexer.searchable), a caller of MessageStore.searchable for good.
   */
  function searchable(waitMs?: number): Promise<void> {
    flushNow();
    return indexer.searchable(nextId - 1, waitMs);
  }

  /**
   * A timestamp no other message of the conversation has, in whole milliseconds: each message
   * owns its millisecond, so a cursor cut to milliseconds (Convos's client sends three decimals)
   * still names exactly one message and scroll-back neither skips nor repeats (docs/api.md). A
   * burst faster than one line per millisecond is spread a millisecond apart. The last line of
   * defence against hostile times: anything outside [0, MAX_TS] becomes the current time, and
   * the search for a free millisecond is bounded, so no value reaches SQLite that JavaScript
   * cannot count with.
   */
  function uniqueTs(conversation: number, wanted: number): number {
    let last = lastTs.get(conversation);
    if (last === undefined) {
      last = (maxTs.get(conversation, MAX_TS) as { ts: number | null }).ts ?? 0;
    }
    let ts = validTs(wanted) ? wanted : nowMicros();
    ts -= ts % MS;
    if (ts <= last) {
      const next = last - (last % MS) + MS; // the millisecond after the newest
      if (last - ts < ARRIVAL_WINDOW) {
        ts = next; // same moment, or behind a burst spread ahead: keep arrival order
      } else {
        // A genuinely older message (server-time replay): find a free millisecond in place.
        flushNow();
        let free: number | undefined;
        for (let tries = 0; tries < MAX_TS_PROBES && free === undefined; tries++, ts += MS) {
          if (!tsTaken.get(conversation, ts)) free = ts;
        }
        ts = free !== undefined && free < last ? free : next; // crowded: after the newest
      }
    }
    lastTs.set(conversation, Math.max(last, ts));
    return ts;
  }

  function page(conversation: number, q: HistoryQuery): MessagePage {
    const limit = q.limit;
    const MIN = Number.MIN_SAFE_INTEGER;
    const MAX = Number.MAX_SAFE_INTEGER;
    let rows: Row[];
    let hasOlder: boolean;
    let hasNewer: boolean;
    if (q.around !== undefined) {
      const before = older.all(conversation, q.around, MIN, limit + 1) as unknown as Row[];
      const after = newer.all(conversation, q.around - 1, MAX, limit + 1) as unknown as Row[];
      hasOlder = before.length > limit;
      hasNewer = after.length > limit;
      rows = [...before.slice(0, limit).reverse(), ...after.slice(0, limit)];
    } else if (q.after !== undefined) {
      const got = newer.all(conversation, q.after, q.before ?? MAX, limit + 1) as unknown as Row[];
      hasNewer = got.length > limit;
      rows = got.slice(0, limit);
      hasOlder = rows.length > 0 && Boolean(anyOlder.get(conversation, rows[0].ts));
    } else {
      const got = older.all(conversation, q.before ?? MAX, MIN, limit + 1) as unknown as Row[];
      hasOlder = got.length > limit;
      rows = got.slice(0, limit).reverse();
      hasNewer = rows.length > 0 && Boolean(anyNewer.get(conversation, rows[rows.length - 1].ts));
    }
    const out: MessagePage = { messages: rows.map(toJson) };
    if (hasOlder && rows.length) out.before = formatMicros(rows[0].ts);
    if (hasNewer && rows.length) out.after = formatMicros(rows[rows.length - 1].ts);
    return out;
  }

  /** Matching rows of one conversation, as a history page (newest `limit` unless a cursor says otherwise). */
  function matchPage(conversation: number, words: string, q: HistoryQuery): MessagePage {
    const owner = ownerOf.get(conversation) as { user_id: number } | undefined;
    const table = owner && indexOf(owner.user_id);
    if (!table) return { messages: [] };
    const limit = q.limit;
    const lower = q.after ?? Number.MIN_SAFE_INTEGER;
    const upper = q.before ?? Number.MAX_SAFE_INTEGER;
    const forward = q.after !== undefined && q.around === undefined;
    const sql = `SELECT ${COLUMNS} FROM messages m
      WHERE m.conversation = ? AND m.ts > ? AND m.ts < ?
        AND m.id IN (SELECT value FROM json_each(?))
      ORDER BY m.ts ${forward ? "ASC" : "DESC"} LIMIT ?`;
    // Every match in the conversation (as one JSON array built by SQLite); the page is cut by
    // time on the messages side, so cursors stay exact whatever the arrival order was.
    const all = `SELECT json_group_array(rowid) AS ids FROM ${table} WHERE ${table} MATCH ?`;
    const ids = (prepared(all, searchDb).get(scoped(words, `"c${conversation}"`)) as {
      ids: string;
    }).ids;
    if (q.around !== undefined) {
      const before = prepared(sql).all(
        conversation,
        lower,
        q.around,
        ids,
        limit + 1,
      ) as unknown as Row[];
      const afterSql = sql.replace("ORDER BY m.ts DESC", "ORDER BY m.ts ASC");
      const after = prepared(afterSql).all(
        conversation,
        q.around - 1,
        upper,
        ids,
        limit + 1,
      ) as unknown as Row[];
      const rows = [...before.slice(0, limit).reverse(), ...after.slice(0, limit)];
      const out: MessagePage = { messages: rows.map(toJson) };
      if (before.length > limit) out.before = formatMicros(rows[0].ts);
      if (after.length > limit) out.after = formatMicros(rows[rows.length - 1].ts);
      return out;
    }
    const got = prepared(sql).all(conversation, lower, upper, ids, limit + 1) as unknown as Row[];
    const more = got.length > limit;
    const rows = forward ? got.slice(0, limit) : got.slice(0, limit).reverse();
    const out: MessagePage = { messages: rows.map(toJson) };
    if (!rows.length) return out;
    if (forward ? more : true) {
      if (forward) out.after = formatMicros(rows[rows.length - 1].ts);
      else if (more) out.before = formatMicros(rows[0].ts);
    }
    return out;
  }

  /** The user's index table, or undefined when nothing of theirs is indexed yet. */
  function indexOf(userId: number): string | undefined {
    const table = userIndex(userId);
    return hasIndex.get(table) ? table : undefined;
  }

  /** Row ids of the user's conversations named `names` (all, when none), on one connection if given. */
  function scopeIds(userId: number, names: string[], connectionId?: string): number[] {
    const where = ["k.user_id = ?"];
    const args: (string | number)[] = [userId];
    if (connectionId !== undefined) where.push("k.connection_id = ?"), args.push(connectionId);
    if (names.length) {
      where.push(`c.conversation_id IN (${names.map(() => "?").join(", ")})`);
      args.push(...names);
    }
    const sql = `SELECT c.id FROM conversations c JOIN connections k ON k.id = c.connection
      WHERE ${where.join(" AND ")} LIMIT 500`;
    return (prepared(sql).all(...args) as { id: number }[]).map((r) => r.id);
  }

  /**
   * The FTS5 text query for the terms. A long prefix of a common word (`that`) would make FTS5
   * merge the lists of every matching term before the first row; such a word is looked up by
   * its first MIN_PREFIX letters through the prefix index instead, and the rows are filtered
   * by the full prefix in SQL. A sample of the scoped rows decides: the short prefix is used
   * when it yields few rows or when the full prefix is a good share of them.
   */
  function planTerms(
    table: string,
    terms: Term[],
    scope?: string,
  ): { text: string; prefixes: string[] } {
    const prefixes: string[] = [];

    const parts = terms.map((term) => {
      const word = term.words[0];
      if (term.words.length !== 1 || !term.prefix || word.length <= MIN_PREFIX) {
        return termFts(term);
      }
      const short = `"${word.slice(0, MIN_PREFIX)}"*`;
      const ids = matchingIds(table, scoped(short, scope), Number.MAX_SAFE_INTEGER, SAMPLE);
      const sample = textsOf.all(JSON.stringify(ids)) as { text: string }[];
      const folded = fold(word);
      const hits = sample.filter((r) => hasWordPrefixes(r.text, [folded])).length;
      if (sample.length < SAMPLE || hits >= SAMPLE * 0.15) {
        prefixes.push(folded);
        return short;
      }
      return termFts(term);
    });
    return { text: parts.join(" AND "), prefixes };
  }

  function search(userId: number, q: SearchQuery): MessagePage {
    const parsed = parseMatch(q.match ?? "");
    const senders = [...parsed.senders, ...(q.from ? [q.from] : [])];
    const conversations = parsed.conversations.map((n) => ircLower(n));
    if (q.conversationId !== undefined) conversations.push(q.conversationId);
    const hasCriteria = parsed.fts !== undefined || senders.length > 0 ||
      conversations.length > 0 ||
      q.connectionId !== undefined;
    if (!hasCriteria || parsed.empty) return { messages: [], end: true };
    // Channel events (joins, parts...) are history, never search results.
    const where = ["m.user_id = ?", `m.type < ${FIRST_EVENT_CODE}`];
    const args: (string | number)[] = [userId];
    if (q.connectionId !== undefined) where.push("k.connection_id = ?"), args.push(q.connectionId);
    if (conversations.length) {
      where.push(`c.conversation_id IN (${conversations.map(() => "?").join(", ")})`);
      args.push(...conversations);
    }
    for (const s of senders) where.push("m.sender = ? COLLATE NOCASE"), args.push(s);
    if (q.before !== undefined) where.push("m.ts < ?"), args.push(q.before);
    if (q.after !== undefined) where.push("m.ts > ?"), args.push(q.after);
    // As Convos: `6` finds "62 toys" when a sender or a conversation narrows the rows. Such a
    // word leaves the index (where a one- or two-letter prefix would read most of it) and
    // filters the narrowed rows instead.
    let terms = parsed.terms;
    if (senders.length || conversations.length) {
      const short = terms.filter((t) => t.bare && !t.prefix).map((t) => fold(t.words[0]));
      if (short.length) {
        terms = terms.filter((t) => !(t.bare && !t.prefix));
        where.push("parley_word_prefixes(m.text, ?)");
        args.push(short.join(" "));
      }
    }
    let got: Row[];
    if (terms.length) {
      // Each user has an index of their own. Conversation restrictions are tokens of the index
      // too, so FTS5 intersects them with the words.
      const table = indexOf(userId);
      if (!table) return { messages: [], end: true };
      let scope: string | undefined;
      if (conversations.length || q.connectionId !== undefined) {
        const ids = scopeIds(userId, conversations, q.connectionId);
        if (!ids.length) return { messages: [], end: true };
        scope = `(${ids.map((id) => `"c${id}"`).join(" OR ")})`;
      }
      const { text, prefixes } = planTerms(table, terms, scope);
      if (prefixes.length) {
        where.push("parley_word_prefixes(m.text, ?)");
        args.push(prefixes.join(" "));
      }
      // A phrase intersected with a scope token is slow in FTS5 (positions are checked for
      // every scoped row); phrases narrow well alone, and the SQL filters above keep the scope.
      const phrase = terms.some((t) => t.words.length > 1);
      const fts = scoped(text, phrase ? undefined : scope);
      const rowsOf = prepared(`SELECT ${WHERE_COLUMNS} FROM messages m ${JOIN_WHERE}
        WHERE m.id IN (SELECT value FROM json_each(?)) AND ${where.join(" AND ")}
        ORDER BY m.id DESC`);
      // Walk the index newest first in growing chunks, stopping at the limit without sorting;
      // the messages side applies what the index does not know (sender, time, full prefixes).
      const want = q.limit + 1;
      got = [];
      for (let below = Number.MAX_SAFE_INTEGER, chunk = want; got.length < want;) {
        const ids = matchingIds(table, fts, below, chunk);
        if (ids.length) got.push(...rowsOf.all(JSON.stringify(ids), ...args) as unknown as Row[]);
        if (ids.length < chunk) break;
        below = ids[ids.length - 1];
        chunk = Math.min(chunk * 4, MAX_CHUNK);
      }
    } else {
      const sql = `SELECT ${WHERE_COLUMNS} FROM messages m ${JOIN_WHERE}
        WHERE ${where.join(" AND ")} ORDER BY m.id DESC LIMIT ?`;
      got = prepared(sql).all(...args, q.limit + 1) as unknown as Row[];
    }
    const rows = got.slice(0, q.limit);
    const out: MessagePage = { messages: rows.map(toJson), end: got.length <= q.limit };
    if (!out.end) out.before = formatMicros(rows[rows.length - 1].ts);
    return out;
  }

  return {
    append(msg: NewMessage) {
      const ts = uniqueTs(msg.conversation, msg.ts ?? nowMicros());
      pending.push({
        conversation: msg.conversation,
        userId: msg.userId,
        ts,
        type: TYPE_CODE[msg.type] ?? 0,
        highlight: msg.highlight ? 1 : 0,
        sender: msg.from.slice(0, 100),
        text: capText(msg.text),
      });
      // One transaction per write window, however many messages arrived in it.
      timer ??= setTimeout(flushSoon, WRITE_WINDOW_MS);
      return msg.unread ? { ts, unread: countUnread(msg.conversation) } : { ts };
    },
    async flush() {
      await checkpointDone;
      flushNow();
    },
    commit: flushNow,
    searchable: () => searchable(Infinity),
    async dispose() {
      flushNow();
      await checkpointDone;
    },
    settled() {
      flushNow();
      return indexer.settled();
    },
    async historyOf(conversation, q) {
      flushNow();
      if (q.match !== undefined) {
        const parsed = parseMatch(q.match);
        if (parsed.empty) return { messages: [] };
        if (parsed.fts !== undefined) {
          await searchable();
          return matchPage(conversation, parsed.fts, q);
        }
      }
      return page(conversation, q);
    },
    async search(userId, q) {
      await searchable();
      return search(userId, q);
    },
    notifications(userId, limit, before = Number.MAX_SAFE_INTEGER) {
      flushNow();
      const got = notifications.all(userId, before, limit + 1) as unknown as Row[];
      const rows = got.slice(0, limit);
      const out: MessagePage = { messages: rows.map(toJson), end: got.length <= limit };
      if (!out.end) out.before = formatMicros(rows[rows.length - 1].ts);
      return Promise.resolve(out);
    },
    unreadNotifications(userId) {
      flushNow();
      const marker = (readMarker.get(userId) as { last_ts: number } | undefined)?.last_ts ?? 0;
      return Promise.resolve((unreadCount.get(userId, marker) as { n: number }).n);
    },
    markNotificationsRead(userId) {
      flushNow();
      const last = (lastHighlight.get(userId) as { ts: number | null }).ts ?? 0;
      setMarker.run(userId, last);
      return Promise.resolve();
    },
    clear(conversation) {
      flushNow();
      clear.run(conversation); // the trigger logs the ids for the indexer to remove
      indexer.committed(nextId - 1);
      return Promise.resolve();
    },
  };
}
