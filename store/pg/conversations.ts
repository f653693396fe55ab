/** Conversations in PostgreSQL (store/conversations.ts has the interface). */
import { nowMicros } from "../../lib/time.ts";
import {
  type ConversationRow,
  type ConversationStore,
  detachColumns,
  toRecord,
} from "../conversations.ts";
import { MAX_DRAFT } from "../../protocol/limits.ts";
import { pgString, type Sql } from "./db.ts";
import { notifyUnread, type UnreadCounts, type UnreadEntry } from "./unread.ts";

/** Conversations in PostgreSQL; `bump` is called when another node renamed or removed one. */
export interface PgConversationStore extends ConversationStore {
  bump(): void;
}

/** The channel on which nodes say that conversations were renamed or removed. */
export const CONVERSATIONS_CHANGED = "parley_conversations_changed";

/**
 * The PostgreSQL implementation of ConversationStore. `settled` resolves once the message writer
 * has committed what it holds (its unread counts are saved in its batches), so a user's listing
 * (notifications counted from the messages) and mark-as-read see every message appended before
 * them; `unread` is the writer's memory of the counts: a connection's conversations are read with
 * it, and it is told of every count set here (and, by a notification, the other nodes' writers).
 */
export function pgConversationStore(
  sql: Sql,
  settled: () => Promise<void>,
  unread: UnreadCounts,
): PgConversationStore {
  let generation = 0;
  /** Runs a write with its notification in the same transaction (delivered at commit). */
  const changing = async (write: (tx: Sql) => Promise<unknown>): Promise<void> => {
    await sql.begin(async (raw) => {
      const tx = raw as unknown as Sql;
      await write(tx);
      await tx`SELECT pg_notify(${CONVERSATIONS_CHANGED}, '')`;
    });
    generation++;
  };
  /** Sets unread counts to 0 where `where` says, and tells the writers. */
  const read = async (write: (tx: Sql) => Promise<{ id: number }[]>) => {
    let entries: UnreadEntry[] = [];
    await sql.begin(async (raw) => {
      const tx = raw as unknown as Sql;
      entries = (await write(tx)).map((r) => [r.id, 0]);
      await notifyUnread(tx, unread.origin, entries);
    });
    unread.set(entries);
  };
  /**
   * A row with the writer's count: the stored one and what the writer has not committed yet.
   * Reading one conversation does not wait for the writer: on the per-line path (a new
   * conversation, a private one that follows a nick) that wait was up to every batch in flight.
   */
  const withCount = (row: ConversationRow) => {
    const record = toRecord(row);
    record.unread = unread.count(record.id) ?? record.unread;
    return record;
  };
  const get = async (connection: number, conversationId: string) => {
    const [row] = await sql<ConversationRow[]>`SELECT v.*, c.connection_id FROM conversations v
      JOIN connections c ON c.id = v.connection
      WHERE v.connection = ${connection} AND v.conversation_id = ${pgString(conversationId)}`;
    return row && withCount(row);
  };
  return {
    get generation() {
      return generation;
    },
    bump: () => void generation++,
    async withDetachment() {
      const rows = await sql<{ user_id: number; connection_id: string }[]>`
        SELECT DISTINCT c.user_id, c.connection_id
        FROM conversations v JOIN connections c ON c.id = v.connection
        WHERE v.detached OR v.detach_after > 0`;
      return rows.map((r) => ({ userId: Number(r.user_id), connectionId: r.connection_id }));
    },
    async listForUser(userId) {
      await settled();
      // The count walks the user's highlights since the last read (a small partial index); a
      // mention read on the notifications page is read.
      const rows = await sql<ConversationRow[]>`SELECT v.*, c.connection_id,
          (SELECT count(*)::int FROM messages m WHERE m.user_id = c.user_id AND m.highlight
            AND m.ts > v.last_read AND m.conversation = v.id
            AND m.ts > coalesce((SELECT r.last_ts FROM notification_reads r
              WHERE r.user_id = c.user_id), 0)) AS notifications
        FROM conversations v JOIN connections c ON c.id = v.connection
        WHERE c.user_id = ${userId} ORDER BY v.conversation_id, c.connection_id`;
      return rows.map(toRecord);
    },
    async listForConnection(connection) {
      const rows = await sql<ConversationRow[]>`SELECT v.*, c.connection_id FROM conversations v
        JOIN connections c ON c.id = v.connection WHERE v.connection = ${connection}
        ORDER BY v.conversation_id`;
      return rows.map(withCount);
    },
    get,
    count: async (connection) =>
      (await sql`SELECT count(*)::int AS n FROM conversations
        WHERE connection = ${connection} AND conversation_id <> ''`)[0].n,
    async ensure(connection, conversationId, name) {
      await sql`INSERT INTO conversations (connection, conversation_id, name, created)
        VALUES (${connection}, ${pgString(conversationId)}, ${pgString(name)}, ${nowMicros()})
        ON CONFLICT (connection, conversation_id) DO NOTHING`;
      return (await get(connection, conversationId))!;
    },
    async setTopic(id, topic) {
      await sql`UPDATE conversations SET topic = ${pgString(topic)} WHERE id = ${id}`;
    },
    async setJoined(id, joined) {
      await sql`UPDATE conversations SET joined = ${joined} WHERE id = ${id}`;
    },
    rename: (id, conversationId, name) =>
      changing((tx) =>
        tx`UPDATE conversations SET conversation_id = ${pgString(conversationId)},
          name = ${pgString(name)} WHERE id = ${id}`
      ),
    addUnread: async (id) =>
      (await sql`UPDATE conversations SET unread = unread + 1 WHERE id = ${id}
        RETURNING unread`)[0]?.unread ?? 0,
    async markRead(id) {
      await settled();
      await read((tx) =>
        tx`UPDATE conversations SET unread = 0, last_read = ${nowMicros()} WHERE id = ${id}
          RETURNING id`
      );
    },
    async markConnectionRead(connection) {
      await settled();
      await read((tx) =>
        tx`UPDATE conversations SET unread = 0, last_read = ${nowMicros()}
          WHERE connection = ${connection} RETURNING id`
      );
    },
    remove: (id) => changing((tx) => tx`DELETE FROM conversations WHERE id = ${id}`),
    // Other nodes cache conversations for incoming messages, and the level is read there.
    setNotify: (id, level) =>
      changing((tx) => tx`UPDATE conversations SET notify = ${level} WHERE id = ${id}`),
    async setDetach(id, change) {
      const cols = detachColumns(change);
      if (!Object.keys(cols).length) return;
      const d = "detached" in cols ? cols.detached === 1 : null;
      // A field not given keeps its value (null: the column's own).
      await changing((tx) =>
        tx`UPDATE conversations SET detached = coalesce(${d}::boolean, detached),
          relay_detached = coalesce(${cols.relay_detached ?? null}::text, relay_detached),
          reattach_on = coalesce(${cols.reattach_on ?? null}::text, reattach_on),
          detach_after = coalesce(${cols.detach_after ?? null}::integer, detach_after)
          WHERE id = ${id}`
      );
    },
    draft: async (id) =>
      (await sql`SELECT draft FROM conversations WHERE id = ${id}`)[0]?.draft ?? "",
    async setDraft(id, text) {
      await sql`UPDATE conversations SET draft = ${pgString(text.slice(0, MAX_DRAFT))}
        WHERE id = ${id}`;
    },
  };
}
