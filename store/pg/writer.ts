/**
 * The PostgreSQL writer: a conversation's appends are taken one at a time (its timestamps and
 * unread count need the ones before), different conversations' side by side (what each reads at
 * first sight is then read together: store/pg/first_sight.ts); all are gathered in memory and
 * committed one transaction per write window, as the SQLite writer
 * (store/sqlite/messages/writer.ts) does.
 */
import { log } from "../../lib/log.ts";
import { observe } from "../../lib/metrics.ts";
import { nowMicros } from "../../lib/time.ts";
import { type Appended, type NewMessage } from "../message_types.ts";
import { TYPE_CODE, TYPES } from "../../protocol/messages.ts";
import { capText } from "../text.ts";
import { pgString, type Sql } from "./db.ts";
import { pgTimestamps } from "./timestamps.ts";
import { messageWords } from "./tsquery.ts";
import type { Vocabulary } from "./vocabulary.ts";
import { firstSight } from "./first_sight.ts";
import { saveUnread, UnreadCounts } from "./unread.ts";
import { answered, unanswered } from "./unanswered.ts";
import { type Spilled, writeSpool } from "./spool.ts";

/** How long appends gather before they are committed (a crash loses at most this much). */
const WRITE_WINDOW_MS = 10;
/**
 * Most messages in one transaction.
 *
 * @internal test seam
 */
export const BATCH = 1000;
/**
 * At the store's close, how long a database that does not answer has to come back (PostgreSQL
 * restarted along with Parley) before the messages held for it are given up.
 */
const CLOSE_GRACE_MS = 3_000;
/** Batches written at once. */
const LANES = 2;
/**
 * Most batches handed to the lanes and not yet written. Past it appends wait: when PostgreSQL is
 * slower than IRC (or a lock holds the table) the backlog stays here, in the IRC transport's
 * bounded queue and then in the server's buffers, instead of growing without bound in memory.
 *
 * @internal test seam
 */
export const MAX_IN_FLIGHT = 16;
/**
 * Most characters (texts and senders) in the batches handed to the lanes and not yet written: a
 * batch the database cannot take is held until it answers, and long lines must not make the
 * held ones hundreds of megabytes.
 *
 * @internal test seam
 */
export const MAX_IN_FLIGHT_CHARS = 16 * 1024 * 1024;

interface Row {
  /** Taken from the sequence by the batch, for the bucket lexeme in `words`. */
  id: number;
  conversation: number;
  user_id: number;
  ts: number;
  type: number;
  highlight: boolean;
  sender: string;
  text: string;
  server_msgid: string | null;
  reply_to: string | null;
  fields: string | null;
  sender_host: string | null;
  words: string;
  /** Its id was taken before it was spooled: it may be stored already. */
  again?: boolean;
}

const COLUMNS: (keyof Row)[] = [
  "id",
  "conversation",
  "user_id",
  "ts",
  "type",
  "highlight",
  "sender",
  "text",
  "server_msgid",
  "reply_to",
  "fields",
  "sender_host",
  "words",
];

/**
 * A row before its id is taken: its words are cut then. `unread`: it counted (kept if given up);
 * `id`: the one it took before, when it comes back from a spool (store/pg/spool.ts).
 */
type Pending = Omit<Row, "id" | "words" | "again"> & { unread: boolean; id?: number };

/** A row given up, as the message it was appended as. */
function spilled(p: Pending, id?: number): Spilled {
  return {
    conversation: p.conversation,
    userId: p.user_id,
    from: p.sender,
    type: TYPES[p.type],
    text: p.text,
    ts: p.ts,
    highlight: p.highlight,
    unread: p.unread,
    ...(p.fields !== null ? { fields: p.fields } : {}),
    ...(p.server_msgid !== null ? { serverMsgid: p.server_msgid } : {}),
    ...(p.reply_to !== null ? { replyTo: p.reply_to } : {}),
    ...(p.sender_host !== null ? { senderHost: p.sender_host } : {}),
    ...((id ?? p.id) !== undefined ? { id: id ?? p.id } : {}),
  };
}

/**
 * The writer of `messages` and of the conversations' unread counts. With `spool` (a folder), what
 * a close gives up is written there, for the next start to append (store/pg/spool.ts).
 */
export function pgWriter(sql: Sql, vocabulary: Vocabulary, spool?: string) {
  let pending: Pending[] = [];
  /** What the close gave up, written to the spool at its end. */
  const givenUpRows: Spilled[] = [];
  /** The batches handed to the lanes and not written yet, with their ids once taken. */
  const unwritten = new Set<{ rows: Pending[]; ids?: number[] }>();
  /** Characters of `pending`'s texts and senders; of the batches in flight. */
  let pendingChars = 0;
  let inFlightChars = 0;
  /** Set by close(): past it, what waits for a database that does not answer is given up. */
  let closeBy: number | undefined;
  const givenUp = () => closeBy !== undefined && performance.now() >= closeBy;
  const unread = new UnreadCounts();
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** Each lane's batches being committed, in order; never reject. */
  const lanes: Promise<void>[] = Array.from({ length: LANES }, () => Promise.resolve());
  let batches = 0;
  let inFlight = 0;
  /** Resolved (and replaced) each time a batch is written: appends held back wait on it. */
  let room = Promise.withResolvers<void>();
  /** Every batch taken so far, committed; never rejects. */
  const written = () => Promise.all(lanes).then(() => {});
  /** Per conversation, its last append being taken (each in order); never rejects. */
  const taking = new Map<number, Promise<unknown>>();
  const sight = firstSight(sql, givenUp);
  /** A conversation's newest time, its unread count kept from the same read. */
  const newest = async (conversation: number) => {
    const seen = await sight(conversation);
    unread.start(conversation, seen.unread);
    return seen.newest;
  };
  const uniqueTs = pgTimestamps(sql, newest, () => commit());

  /**
   * The rows with ids from the sequence (one round trip a batch: a row's words name its bucket
   * of ids), and the words not yet in the vocabulary.
   */
  async function withIds(rows: Pending[]): Promise<{ rows: Row[]; words: string[] }> {
    const wanted = rows.filter((r) => r.id === undefined).length;
    const ids = wanted ? await newIds(wanted) : [];
    let next = 0;
    const words = new Set<string>();
    const out = rows.map((row) => {
      const id = row.id ?? ids[next++];
      return {
        ...row,
        id,
        again: row.id !== undefined,
        words: messageWords(row.text, row.type, {
          userId: row.user_id,
          conversation: row.conversation,
          id,
        }, words),
      };
    });
    return { rows: out, words: vocabulary.unknown(words).sort() };
  }

  async function save(tx: Sql, one: Row[]) {
    // A row back from a spool may be there already (its first commit went through late): its id
    // says so, and it is not stored twice.
    const again = one.some((r) => r.again);
    // A column an array: a parameter a column for the batch instead of one a column a row, which
    // PostgreSQL parsed and planned for each batch anew.
    // (The client sends a list of booleans as one boolean: highlights go as 0 and 1.)
    await tx`INSERT INTO messages (${tx(COLUMNS)})
      SELECT id, conversation, user_id, ts, type, highlight <> 0, sender, text, server_msgid,
        reply_to, fields, sender_host, words
      FROM unnest(
        ${one.map((r) => r.id)}::bigint[], ${one.map((r) => r.conversation)}::bigint[],
        ${one.map((r) => r.user_id)}::bigint[], ${one.map((r) => r.ts)}::bigint[],
        ${one.map((r) => r.type)}::smallint[], ${one.map((r) => r.highlight ? 1 : 0)}::int[],
        ${one.map((r) => r.sender)}::text[], ${one.map((r) => r.text)}::text[],
        ${one.map((r) => r.server_msgid)}::text[], ${one.map((r) => r.reply_to)}::text[],
        ${one.map((r) => r.fields)}::text[], ${one.map((r) => r.sender_host)}::text[],
        ${one.map((r) => r.words)}::tsvector[]
      ) AS t(id, conversation, user_id, ts, type, highlight, sender, text, server_msgid,
        reply_to, fields, sender_host, words)
      ${again ? tx`ON CONFLICT (id) DO NOTHING` : tx``}`;
  }

  /** `n` ids from the sequence, in order (one round trip). */
  async function newIds(n: number): Promise<number[]> {
    return (await sql<{ id: string }[]>`SELECT nextval('messages_id_seq') AS id
      FROM generate_series(1, ${n})`).map((r) => Number(r.id)).sort((a, b) => a - b);
  }

  /** Which of `ids` are stored. */
  async function storedIds(ids: number[]): Promise<Set<number>> {
    return new Set(
      (await sql<{ id: string }[]>`SELECT id FROM messages WHERE id = ANY(${ids}::bigint[])`)
        .map((r) => Number(r.id)),
    );
  }

  /** Whether every row of `rows` is stored (a commit whose answer was lost with the connection). */
  async function stored(rows: Row[]): Promise<boolean> {
    return (await storedIds(rows.map((r) => r.id))).size === rows.length;
  }

  async function writeBatch(
    pendingRows: Pending[],
    counts: Map<number, number>,
    taken: { ids?: number[] },
  ) {
    let batch: { rows: Row[]; words: string[] } | undefined;
    /** The database stopped answering (restarting): the batch is kept and tried again. */
    let held = false;
    for (;;) {
      try {
        batch ??= await withIds(pendingRows);
        taken.ids ??= batch.rows.map((r) => r.id);
        const { rows, words } = batch;
        const started = performance.now();
        await sql.begin(async (tx) => {
          await vocabulary.add(tx as unknown as Sql, words);
          await save(tx as unknown as Sql, rows);
          await saveUnread(tx as unknown as Sql, counts);
        });
        observe.storeBatch(rows.length, (performance.now() - started) / 1000);
        vocabulary.learned(words);
        if (held) {
          log.info("message batch written: the database answers again", { rows: rows.length });
        }
        return;
      } catch (err) {
        // Tried again after the connection went: its ids are already there when the first
        // try's commit went through and only its answer was lost.
        if (held && batch && !unanswered(err) && await stored(batch.rows).catch(() => false)) {
          vocabulary.learned(batch.words);
          return;
        }
        if (!unanswered(err)) {
          if (batch) {
            log.warn("message batch failed; writing one by one", { error: String(err) });
            break;
          }
          log.warn("message batch dropped: no ids", { error: String(err) });
          return;
        }
        if (!held) {
          log.warn("message batch held: the database does not answer; kept until it does", {
            rows: pendingRows.length,
            error: String(err),
          });
        }
        held = true;
        if (!await answered(sql, givenUp)) {
          givenUpRows.push(...pendingRows.map((p, i) => spilled(p, batch?.rows[i].id)));
          return;
        }
      }
    }
    const { rows, words } = batch;

    // One bad row (its conversation deleted meanwhile) must not lose the others.
    await vocabulary.add(sql, words).catch((err) =>
      log.warn("search words not saved", { error: String(err) })
    );
    for (const row of rows) {
      await save(sql, [row]).catch((err) =>
        log.warn("message dropped", { conversation: row.conversation, error: String(err) })
      );
    }
    for (const [id, n] of counts) {
      await sql`UPDATE conversations SET unread = unread + ${n} WHERE id = ${id}`
        .catch((err) => log.warn("unread count not saved", { error: String(err) }));
    }
  }

  /** Starts committing what is pending; resolves once everything taken so far is committed. */
  function commit(): Promise<void> {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending.length) {
      const rows = pending;
      const counts = unread.take();
      const chars = pendingChars;
      pending = [];
      pendingChars = 0;
      // Two batches are written at once, each on its own connection: PostgreSQL's work for one
      // (the GIN index above all) overlaps the other's round trips and this process's. Their
      // rows hold ids taken beforehand, so the order they commit in changes nothing stored; the
      // counts and words are locked in a fixed order, so two never wait on each other in a
      // cycle.
      const lane = batches++ % LANES;
      inFlight++;
      inFlightChars += chars;
      const held: { rows: Pending[]; ids?: number[] } = { rows };
      unwritten.add(held);
      lanes[lane] = lanes[lane].then(async () => {
        try {
          await writeBatch(rows, counts, held);
        } finally {
          unwritten.delete(held);
          inFlight--;
          inFlightChars -= chars;
          room.resolve();
          room = Promise.withResolvers<void>();
        }
      });
    }
    return written();
  }

  async function take(msg: NewMessage, id?: number): Promise<Appended> {
    // Whichever batch is written first makes room: the lanes finish out of order (one may hold
    // every batch in flight while the other has none left).
    while (inFlight >= MAX_IN_FLIGHT || inFlightChars >= MAX_IN_FLIGHT_CHARS) await room.promise;
    // A conversation's first message reads its stored count along with its newest time.
    const ts = await uniqueTs(msg.conversation, msg.ts ?? nowMicros());
    const count = msg.unread ? unread.add(msg.conversation) : undefined;
    const text = pgString(capText(msg.text));
    const sender = pgString(msg.from.slice(0, 100));
    const fields = msg.fields ? pgString(msg.fields) : null;
    pendingChars += text.length + sender.length + (fields?.length ?? 0);
    pending.push({
      ...(id !== undefined ? { id } : {}),
      unread: count !== undefined,
      conversation: msg.conversation,
      user_id: msg.userId,
      ts,
      type: TYPE_CODE[msg.type] ?? 0,
      highlight: Boolean(msg.highlight),
      sender,
      text,
      server_msgid: msg.serverMsgid ? pgString(msg.serverMsgid) : null,
      reply_to: msg.replyTo ? pgString(msg.replyTo) : null,
      fields,
      sender_host: msg.senderHost ? pgString(msg.senderHost.slice(0, 200)) : null,
    });
    if (pending.length >= BATCH) commit();
    else timer ??= setTimeout(commit, WRITE_WINDOW_MS);
    return count === undefined ? { ts } : { ts, unread: count };
  }

  return {
    /**
     * Takes a message; resolves with its final timestamp (and unread count when it counts). `id`:
     * the id it took before it was spooled (store/pg/spool.ts).
     */
    append(msg: NewMessage, id?: number): Promise<Appended> {
      const c = msg.conversation;
      const done = (taking.get(c) ?? Promise.resolve()).then(() => take(msg, id)).catch((err) => {
        // Its conversation's first read waited for a database the close gave up on.
        if (givenUp()) {
          givenUpRows.push({
            ...msg,
            ts: msg.ts ?? nowMicros(),
            ...(id !== undefined ? { id } : {}),
          });
        } else log.warn("message dropped", { conversation: c, error: String(err) });
        return { ts: msg.ts ?? nowMicros() };
      });
      taking.set(c, done);
      done.then(() => {
        if (taking.get(c) === done) taking.delete(c);
      });
      return done;
    },
    /**
     * Ending now (a stop past its bound: a database that hangs mid-query): what the writer holds
     * and the database never confirmed goes to the spool at once, as a close's given-up rows do.
     * Returns how many messages were kept, and how many conversations still had some on their way
     * in (those are lost).
     */
    abandon(): { kept: number; lost: number } {
      const rows: Spilled[] = [...givenUpRows];
      for (const held of unwritten) {
        rows.push(...held.rows.map((p, i) => spilled(p, held.ids?.[i])));
      }
      rows.push(...pending.map((p) => spilled(p)));
      if (!rows.length || !spool) return { kept: 0, lost: taking.size };
      writeSpool(spool, rows);
      return { kept: rows.length, lost: taking.size };
    },
    /** Resolves once everything appended so far is committed (reads call it first). */
    async flush(): Promise<void> {
      await Promise.all(taking.values());
      await commit();
    },
    /**
     * The last turn: commits what is taken. A database that does not answer has CLOSE_GRACE_MS
     * to come back; then what waits for it (a held batch, a first sight) is given up, so that
     * the shutdown ends.
     */
    async close(): Promise<void> {
      // Before the wait for what is being taken: a first sight waits for the database too.
      closeBy = performance.now() + CLOSE_GRACE_MS;
      await Promise.all(taking.values());
      await commit();
      if (!givenUpRows.length) return;
      const rows = givenUpRows.length;
      if (!spool) {
        log.warn("messages dropped: the store closed before the database answered", { rows });
        return;
      }
      try {
        const file = writeSpool(spool, givenUpRows.splice(0));
        log.warn("messages held for the database kept for the next start", { rows, file });
      } catch (err) {
        log.warn("messages dropped: neither the database nor the data folder took them", {
          rows,
          error: String(err),
        });
      }
    },
    /** Ids for messages spooled without one, and which spooled ids are stored (spool.ts). */
    newIds,
    stored: storedIds,
    /** The unread counts this writer tells (store/pg/unread.ts). */
    unread,
  };
}
