/**
 * Conversations in PostgreSQL: their unread counts, which are the message writer's (the rest of
 * the table is written once, store/tables/conversations.ts; store/conversations.ts has the
 * interface).
 */
import { nowMicros } from "../../lib/time.ts";
import { type ConversationRow, toRecord } from "../conversations.ts";
import { conversationStore, type SharedConversationStore } from "../tables/conversations.ts";
import type { TableDb } from "../tables/db.ts";
import type { Sql } from "./db.ts";
import { notifyUnread, type UnreadCounts, type UnreadEntry } from "./unread.ts";

/**
 * The PostgreSQL implementation of ConversationStore. `settled` resolves once the message writer
 * has committed what it holds (its unread counts are saved in its batches), so a user's listing
 * (notifications counted from the messages) and mark-as-read see every message appended before
 * them; `unread` is the writer's memory of the counts: a connection's conversations are read with
 * it, and it is told of every count set here (and, by a notification, the other nodes' writers).
 * Reading one conversation does not wait for the writer: on the per-line path (a new
 * conversation, a private one that follows a nick) that wait was up to every batch in flight.
 */
export function pgConversationStore(
  sql: Sql,
  tables: TableDb,
  settled: () => Promise<void>,
  unread: UnreadCounts,
): SharedConversationStore {
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
  /** A row with the writer's count: the stored one and what the writer has not committed yet. */
  const withCount = (row: ConversationRow) => {
    const record = toRecord(row);
    record.unread = unread.count(record.id) ?? record.unread;
    return record;
  };
  return conversationStore(tables, {
    count: (id, stored) => unread.count(id) ?? stored,
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
  });
}
