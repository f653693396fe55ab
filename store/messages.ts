/** Messages: the batched writer, history pages, search, and notifications. */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { formatMicros, nowMicros } from "../lib/time.ts";
import { log } from "../lib/log.ts";
import { fold, hasWordPrefixes, MIN_PREFIX, parseMatch, type Term, termFts } from "./match.ts";
import { ircLower } from "../irc/casefold.ts";
import type {
  HistoryQuery,
  MessageJson,
  MessagePage,
  MessageStore,
  MessageType,
  NewMessage,
  SearchQuery,
} from "./message_types.ts";

const TYPES: MessageType[] = ["privmsg", "notice", "action"];
/**
 * How long the writer gathers messages before committing them in one transaction. Each commit
 * also writes a search-index segment, so committing every message of a quiet channel on its
 * own makes segment merges frequent; a crash loses at most this much.
 */
const WRITE_WINDOW_MS = 10;
/** Rows sampled to decide how to look up a long prefix (see planTerms). */
const SAMPLE = 200;
/** Quiet time after the last write before the search index is tidied. */
const MERGE_IDLE_MS = 1000;
/** Pages of index work per merge step: a few milliseconds, so the event loop stays responsive. */
const MERGE_PAGES = 64;
const TYPE_CODE: Record<MessageType, number> = { privmsg: 0, notice: 1, action: 2 };

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
    type: TYPES[row.type] ?? "privmsg",
  };
  if (row.highlight) out.highlight = true;
  if (row.connection_id !== undefined) out.connection_id = row.connection_id;
  if (row.conversation_id !== undefined) out.conversation_id = row.conversation_id;
  return out;
}

const COLUMNS = "m.id, m.ts, m.type, m.highlight, m.sender, m.text";
const WHERE_COLUMNS = `${COLUMNS}, k.connection_id, c.conversation_id`;
const JOIN_WHERE =
  "JOIN conversations c ON c.id = m.conversation JOIN connections k ON k.id = c.connection";

/** The SQLite implementation of MessageStore. */
export function sqliteMessageStore(db: DatabaseSync): MessageStore & { dispose(): void } {
  const insert = db.prepare(
    "INSERT INTO messages (conversation, user_id, ts, type, highlight, sender, text) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const index = db.prepare("INSERT INTO messages_fts (rowid, text, scope) VALUES (?, ?, ?)");
  const maxTs = db.prepare("SELECT max(ts) AS ts FROM messages WHERE conversation = ?");
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
  const sampleTexts = db.prepare(
    `SELECT m.text FROM messages_fts f JOIN messages m ON m.id = f.rowid
     WHERE messages_fts MATCH ? ORDER BY f.rowid DESC LIMIT ?`,
  );
  db.function(
    "parley_word_prefixes",
    { deterministic: true },
    (text, prefixes) => hasWordPrefixes(String(text), String(prefixes).split(" ")) ? 1 : 0,
  );
  // Statements built from a query's shape are cached by their SQL text.
  const dynamic = new Map<string, StatementSync>();
  const prepared = (sql: string) => {
    let st = dynamic.get(sql);
    if (!st) dynamic.set(sql, st = db.prepare(sql));
    return st;
  };

  const lastTs = new Map<number, number>();
  let pending: Pending[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;

  function writeBatch(batch: Pending[]) {
    const run = (p: Pending) => {
      const { lastInsertRowid } = insert.run(
        p.conversation,
        p.userId,
        p.ts,
        p.type,
        p.highlight,
        p.sender,
        p.text,
      );
      index.run(lastInsertRowid, p.text, `u${p.userId} c${p.conversation}`);
    };
    db.exec("BEGIN");
    try {
      for (const p of batch) run(p);
      db.exec("COMMIT");
      return;
    } catch (err) {
      db.exec("ROLLBACK");
      log.warn("message batch failed; writing one by one", { error: String(err) });
    }
    // One bad row (its conversation deleted meanwhile) must not lose the others.
    for (const p of batch) {
      try {
        run(p);
      } catch (err) {
        log.warn("message dropped", { conversation: p.conversation, error: String(err) });
      }
    }
  }

  function flushNow() {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (!pending.length) return;
    const batch = pending;
    pending = [];
    writeBatch(batch);
    scheduleMerge();
  }

  // Index maintenance while idle: ingest leaves many small FTS5 segments (automerge is set high
  // so that writes stay fast), and every term lookup probes each of them. Once the writer has
  // been quiet for a moment, merge them in small steps, yielding between steps.
  const merge = db.prepare("INSERT INTO messages_fts (messages_fts, rank) VALUES ('merge', ?)");
  const totalChanges = db.prepare("SELECT total_changes() AS n");
  let mergeTimer: ReturnType<typeof setTimeout> | undefined;
  const settledWaiters: (() => void)[] = [];
  function scheduleMerge(delay = MERGE_IDLE_MS) {
    if (mergeTimer !== undefined) clearTimeout(mergeTimer);
    mergeTimer = setTimeout(mergeStep, delay);
    // Tidying alone must not keep a process alive, unless someone waits for it.
    if (!settledWaiters.length) Deno.unrefTimer(mergeTimer as unknown as number);
  }
  function mergeStep() {
    mergeTimer = undefined;
    if (pending.length) return scheduleMerge();
    const before = (totalChanges.get() as { n: number }).n;
    try {
      merge.run(MERGE_PAGES);
    } catch (err) {
      log.warn("search index merge failed", { error: String(err) });
      return settle();
    }
    // Fewer than two changes means there was nothing left to merge (SQLite's FTS5 docs).
    if ((totalChanges.get() as { n: number }).n - before >= 2) scheduleMerge(0);
    else settle();
  }
  function settle() {
    for (const resolve of settledWaiters.splice(0)) resolve();
  }

  /** A timestamp no other message of the conversation has. */
  function uniqueTs(conversation: number, wanted: number): number {
    let last = lastTs.get(conversation);
    if (last === undefined) {
      last = (maxTs.get(conversation) as { ts: number | null }).ts ?? 0;
    }
    let ts = wanted;
    if (ts <= last) {
      if (ts === last || last - ts < 1000) {
        ts = last + 1; // same moment or a hair older: keep arrival order
      } else {
        // A genuinely older message (server-time replay): find a free microsecond in place.
        flushNow();
        while (tsTaken.get(conversation, ts)) ts++;
        return ts;
      }
    }
    lastTs.set(conversation, ts);
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
    let fts = words;
    const limit = q.limit;
    const lower = q.after ?? Number.MIN_SAFE_INTEGER;
    const upper = q.before ?? Number.MAX_SAFE_INTEGER;
    const forward = q.after !== undefined && q.around === undefined;
    const sql = `SELECT ${COLUMNS} FROM messages m
      WHERE m.conversation = ? AND m.ts > ? AND m.ts < ?
        AND m.id IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?)
      ORDER BY m.ts ${forward ? "ASC" : "DESC"} LIMIT ?`;
    fts = `scope : "c${conversation}" AND text : (${fts})`;
    if (q.around !== undefined) {
      const before = prepared(sql).all(
        conversation,
        lower,
        q.around,
        fts,
        limit + 1,
      ) as unknown as Row[];
      const afterSql = sql.replace("ORDER BY m.ts DESC", "ORDER BY m.ts ASC");
      const after = prepared(afterSql).all(
        conversation,
        q.around - 1,
        upper,
        fts,
        limit + 1,
      ) as unknown as Row[];
      const rows = [...before.slice(0, limit).reverse(), ...after.slice(0, limit)];
      const out: MessagePage = { messages: rows.map(toJson) };
      if (before.length > limit) out.before = formatMicros(rows[0].ts);
      if (after.length > limit) out.after = formatMicros(rows[rows.length - 1].ts);
      return out;
    }
    const got = prepared(sql).all(conversation, lower, upper, fts, limit + 1) as unknown as Row[];
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
  function planTerms(terms: Term[], scope: string): { text: string; prefixes: string[] } {
    const prefixes: string[] = [];
    const parts = terms.map((term) => {
      const word = term.words[0];
      if (term.words.length !== 1 || !term.prefix || word.length <= MIN_PREFIX) {
        return termFts(term);
      }
      const short = `"${word.slice(0, MIN_PREFIX)}"*`;
      const sample = sampleTexts.all(`scope : ${scope} AND text : (${short})`, SAMPLE) as {
        text: string;
      }[];
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
    const where = ["m.user_id = ?"];
    const args: (string | number)[] = [userId];
    if (q.connectionId !== undefined) where.push("k.connection_id = ?"), args.push(q.connectionId);
    if (conversations.length) {
      where.push(`c.conversation_id IN (${conversations.map(() => "?").join(", ")})`);
      args.push(...conversations);
    }
    for (const s of senders) where.push("m.sender = ? COLLATE NOCASE"), args.push(s);
    if (q.before !== undefined) where.push("m.ts < ?"), args.push(q.before);
    if (q.after !== undefined) where.push("m.ts > ?"), args.push(q.after);
    let sql: string;
    if (parsed.fts !== undefined) {
      // The user and conversation restrictions are tokens of the index too, so FTS5 intersects
      // them with the words; walking it newest first stops at the limit without sorting.
      let scope = `"u${userId}"`;
      if (conversations.length || q.connectionId !== undefined) {
        const ids = scopeIds(userId, conversations, q.connectionId);
        if (!ids.length) return { messages: [], end: true };
        scope = `(${ids.map((id) => `"c${id}"`).join(" OR ")})`;
      }
      const { text, prefixes } = planTerms(parsed.terms, scope);
      if (prefixes.length) {
        where.push("parley_word_prefixes(m.text, ?)");
        args.push(prefixes.join(" "));
      }
      // A phrase intersected with a scope token is slow in FTS5 (positions are checked for
      // every scoped row); phrases narrow well alone, and the SQL filters above keep the scope.
      const phrase = parsed.terms.some((t) => t.words.length > 1);
      sql =
        `SELECT ${WHERE_COLUMNS} FROM messages_fts f JOIN messages m ON m.id = f.rowid ${JOIN_WHERE}
        WHERE messages_fts MATCH ? AND ${where.join(" AND ")} ORDER BY f.rowid DESC LIMIT ?`;
      args.unshift(phrase ? `text : (${text})` : `scope : ${scope} AND text : (${text})`);
    } else {
      sql = `SELECT ${WHERE_COLUMNS} FROM messages m ${JOIN_WHERE}
        WHERE ${where.join(" AND ")} ORDER BY m.id DESC LIMIT ?`;
    }
    const got = prepared(sql).all(...args, q.limit + 1) as unknown as Row[];
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
        sender: msg.from,
        text: msg.text,
      });
      // One transaction per write window, however many messages arrived in it.
      timer ??= setTimeout(flushNow, WRITE_WINDOW_MS);
      return { ts };
    },
    flush() {
      flushNow();
      return Promise.resolve();
    },
    dispose() {
      flushNow();
      if (mergeTimer !== undefined) clearTimeout(mergeTimer);
      mergeTimer = undefined;
      settle();
    },
    settled() {
      flushNow();
      if (mergeTimer === undefined) return Promise.resolve();
      const done = new Promise<void>((resolve) => settledWaiters.push(resolve));
      scheduleMerge(0);
      return done;
    },
    historyOf(conversation, q) {
      flushNow();
      if (q.match !== undefined) {
        const parsed = parseMatch(q.match);
        if (parsed.empty) return Promise.resolve({ messages: [] });
        if (parsed.fts !== undefined) {
          return Promise.resolve(matchPage(conversation, parsed.fts, q));
        }
      }
      return Promise.resolve(page(conversation, q));
    },
    search(userId, q) {
      flushNow();
      return Promise.resolve(search(userId, q));
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
      clear.run(conversation);
      return Promise.resolve();
    },
  };
}
