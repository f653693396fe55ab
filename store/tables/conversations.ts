/**
 * Conversations on either backend (store/conversations.ts has the interface): every plain read
 * and write of the table. What reads or writes unread counts is the backend's own (`UnreadPart`),
 * since the counts are its message writer's: SQLite adds the writer's pending counts, PostgreSQL
 * reads its memory of them and tells the other nodes.
 */
import type { Expression } from "kysely";
import { nowMicros } from "../../lib/time.ts";
import { MAX_DRAFT } from "../../protocol/limits.ts";
import { channelKey, type ConversationStore, detachColumns, toRecord } from "../conversations.ts";
import { prepared, type TableDb } from "./db.ts";
import type { ConversationsTable } from "./schema.ts";

/** What a backend writes itself: the parts of the store that read or write unread counts. */
interface UnreadPart extends
  Pick<
    ConversationStore,
    "listForUser" | "listForConnection" | "addUnread" | "markRead" | "markConnectionRead"
  > {
  /** A conversation's unread count, given the stored one: with what the writer has not saved. */
  count(id: number, stored: number): number;
}

/** The ConversationStore; `bump` is called when another node renamed or removed one. */
export interface SharedConversationStore extends ConversationStore {
  bump(): void;
}

/** The ConversationStore over a backend's executor, with its unread counts. */
export function conversationStore(db: TableDb, unread: UnreadPart): SharedConversationStore {
  const { q } = db;
  // Both run for every IRC line stored: built and compiled once.
  const one = prepared((connection: Expression<number>, conversationId: Expression<string>) =>
    q.selectFrom("conversations as v").innerJoin("connections as c", "c.id", "v.connection")
      .selectAll("v").select("c.connection_id")
      .where("v.connection", "=", connection).where("v.conversation_id", "=", conversationId)
  );
  const insert = prepared((
    connection: Expression<number>,
    conversationId: Expression<string>,
    name: Expression<string>,
    created: Expression<number>,
  ) =>
    q.insertInto("conversations")
      .values({ connection, conversation_id: conversationId, name, created })
      .onConflict((c) => c.columns(["connection", "conversation_id"]).doNothing())
  );
  // Per channel event (a join or part, a topic, a new conversation's cap): built and compiled
  // once too; building and compiling at each call was 2-3 times SQLite's own work for them.
  const setTopic = prepared((id: Expression<number>, topic: Expression<string>) =>
    q.updateTable("conversations").set({ topic }).where("id", "=", id)
  );
  const setJoined = prepared((id: Expression<number>, joined: Expression<boolean>) =>
    q.updateTable("conversations").set({ joined }).where("id", "=", id)
  );
  const countOf = prepared((connection: Expression<number>) =>
    q.selectFrom("conversations").select((s) => s.fn.countAll<number>().as("n"))
      .where("connection", "=", connection).where("conversation_id", "!=", "")
  );
  const get = async (connection: number, conversationId: string) => {
    const row = await db.first(one(connection, conversationId));
    if (!row) return undefined;
    const record = toRecord(row);
    record.unread = unread.count(record.id, record.unread);
    return record;
  };
  const update = (id: number, values: Partial<Record<keyof ConversationsTable, unknown>>) =>
    q.updateTable("conversations").set(values as never).where("id", "=", id);
  let generation = 0;
  /**
   * A change other nodes cache (renames, removals, notify levels, detachment): told to them at
   * the commit, and this node's caches reload on the next generation.
   */
  const changing = async (
    values: Partial<Record<keyof ConversationsTable, unknown>>,
    id: number,
  ) => {
    await db.transaction(async (tx) => {
      await tx.run(update(id, values));
      await tx.changed("conversations");
    });
    generation++;
  };
  return {
    get generation() {
      return generation;
    },
    bump: () => void generation++,
    listForUser: unread.listForUser,
    listForConnection: unread.listForConnection,
    addUnread: unread.addUnread,
    markRead: unread.markRead,
    markConnectionRead: unread.markConnectionRead,
    get,
    async ensure(connection, conversationId, name) {
      await db.run(insert(connection, conversationId, name, nowMicros()));
      return (await get(connection, conversationId))!;
    },
    async withDetachment() {
      const rows = await db.all(
        q.selectFrom("conversations as v").innerJoin("connections as c", "c.id", "v.connection")
          .select(["c.user_id", "c.connection_id"]).distinct()
          .where((w) => w.or([w("v.detached", "=", true), w("v.detach_after", ">", 0)])),
      );
      return rows.map((r) => ({ userId: r.user_id, connectionId: r.connection_id }));
    },
    count: async (connection) => Number((await db.first(countOf(connection)))?.n ?? 0),
    setTopic: async (id, topic) => void await db.run(setTopic(id, topic)),
    setJoined: async (id, joined) => void await db.run(setJoined(id, joined)),
    rename: (id, conversationId, name) => changing({ conversation_id: conversationId, name }, id),
    async remove(id) {
      await db.transaction(async (tx) => {
        await tx.run(q.deleteFrom("conversations").where("id", "=", id));
        await tx.changed("conversations");
      });
      generation++;
    },
    // Other nodes cache conversations for incoming messages, and the level is read there.
    setNotify: (id, level) => changing({ notify: level }, id),
    async setKey(id, key) {
      const kept = key === "" ? "" : channelKey(key);
      if (kept !== undefined) await db.run(update(id, { channel_key: kept }));
    },
    async setDetach(id, change) {
      const cols: Record<string, unknown> = detachColumns(change);
      if (!Object.keys(cols).length) return;
      if ("detached" in cols) cols.detached = cols.detached === 1;
      await changing(cols, id);
    },
    draft: async (id) =>
      (await db.first(q.selectFrom("conversations").select("draft").where("id", "=", id)))
        ?.draft ?? "",
    setDraft: async (id, text) =>
      void await db.run(update(id, { draft: text.slice(0, MAX_DRAFT) })),
  };
}
