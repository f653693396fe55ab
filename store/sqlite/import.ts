/**
 * Bulk import of history (`parley import`): messages written straight into `messages` in large
 * transactions, with ids from `message_ids` like the batched writer, so that the search worker
 * indexes them as "everything after id N" at its next start. Only while no daemon runs (the
 * command holds the data folder's lock), so nothing else assigns ids or timestamps meanwhile.
 */
import type { DatabaseSync } from "node:sqlite";
import { type MessageType } from "../../protocol/events.ts";
import { TYPE_CODE } from "../../protocol/messages.ts";
import { capText } from "../text.ts";

/** Rows per transaction: large enough that commits cost nothing, small enough to bound the WAL. */
const CHUNK = 50_000;

/** One message or channel event of another program's history. */
export interface ImportedMessage {
  conversation: number;
  userId: number;
  /** Microseconds since the epoch, as the other program recorded it. */
  ts: number;
  type: MessageType;
  from: string;
  /** A channel event's is "": its sentence is made from `fields` where it is shown. */
  text: string;
  /**
   * A channel event's fields besides its sender, as JSON (store/event_fields.ts `storedFields`);
   * absent for a message.
   */
  fields?: string;
  /** Never true for a channel event. */
  highlight: boolean;
}

/** The writer's side of an import. */
interface MessageImporter {
  /**
   * Adds a message or event unless the same one (time, sender, text, fields) is already there;
   * true if added.
   */
  add(m: ImportedMessage): boolean;
  /** Commits what is pending. */
  flush(): void;
}

/**
 * A writer of imported messages. Timestamps stay the original ones: within one conversation
 * they are made strictly increasing in the order given (two messages of the same millisecond
 * get 1 µs apart), and a row already at that time with the same sender, text and fields is the
 * same message or event, imported before, so it is skipped. Running an import twice thus adds
 * nothing. A channel event is written as Parley keeps its own: its fields, an empty text, never a
 * highlight.
 */
export function messageImporter(db: DatabaseSync): MessageImporter {
  const insert = db.prepare(
    "INSERT INTO messages (id, conversation, user_id, ts, type, highlight, sender, text, fields) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const at = db.prepare(
    "SELECT sender, text, fields FROM messages WHERE conversation = ? AND ts = ?",
  );
  const maxTs = db.prepare("SELECT max(ts) AS ts FROM messages WHERE conversation = ?");
  const readNext = db.prepare("SELECT next FROM message_ids");
  const saveNext = db.prepare("UPDATE message_ids SET next = ?");
  const lastTs = new Map<number, number>();
  // The newest time each conversation had before this import: above it nothing can collide,
  // so a first import (the common case) never looks for an existing row.
  const before = new Map<number, number>();
  let open = false;
  let rows = 0;
  let nextId = 0;

  function begin() {
    db.exec("BEGIN IMMEDIATE");
    open = true;
    nextId = (readNext.get() as { next: number }).next;
  }

  function flush() {
    if (!open) return;
    saveNext.run(nextId);
    db.exec("COMMIT");
    open = false;
    rows = 0;
  }

  return {
    add(m) {
      if (!open) begin();
      const last = lastTs.get(m.conversation);
      let ts = last !== undefined && m.ts <= last ? last + 1 : m.ts;
      let newest = before.get(m.conversation);
      if (newest === undefined) {
        newest = (maxTs.get(m.conversation) as { ts: number | null }).ts ?? -Infinity;
        before.set(m.conversation, newest);
      }
      const fields = m.fields ?? null;
      // Bounded as every stored line is: another program's log may hold anything.
      const from = m.from.slice(0, 100);
      const text = capText(m.text);
      // A bounded walk: a different message at this microsecond moves this one a little later.
      for (let i = 0; i < 1000 && ts <= newest; i++, ts++) {
        const there = at.get(m.conversation, ts) as
          | { sender: string; text: string; fields: string | null }
          | undefined;
        if (!there) break;
        if (there.sender === from && there.text === text && there.fields === fields) {
          lastTs.set(m.conversation, ts);
          return false;
        }
      }
      insert.run(
        nextId++,
        m.conversation,
        m.userId,
        ts,
        TYPE_CODE[m.type],
        m.highlight && fields === null ? 1 : 0,
        from,
        text,
        fields,
      );
      lastTs.set(m.conversation, ts);
      if (++rows >= CHUNK) flush();
      return true;
    },
    flush,
  };
}
