/**
 * The SQLite message writer: when another connection holds the write lock past the busy timeout
 * (a checkpoint starved of CPU on a loaded machine) the batch waits and is written later, nothing
 * is lost, and reads answer meanwhile; and listings that read no counts do not commit its batch.
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { assertEquals } from "../support/assert.ts";
import { poll } from "../support/poll.ts";
import { openStore } from "../../store/mod.ts";
import { idleConnection } from "../support/backends.ts";

Deno.test("sqlite writer: a batch the busy database refuses is written later, and reads go on", async () => {
  const dir = await Deno.makeTempDir({ prefix: "parley-busy-" });
  const store = await openStore(dir);
  const other = new DatabaseSync(join(dir, "parley.db"));
  try {
    const user = await store.users.create("busy@example.com", "x", []);
    const conn = await idleConnection(store, user.id, "irc-busy", "busy");
    const conv = await store.conversations.ensure(conn.id, "#busy", "#busy");
    const say = (text: string) =>
      store.messages.append({
        conversation: conv.id,
        userId: user.id,
        from: "bob",
        type: "private",
        text,
        unread: true,
      });
    await say("before");
    await store.messages.flush();
    // Another connection takes the write lock and keeps it past the busy timeout.
    other.exec("BEGIN IMMEDIATE");
    await say("while locked 1");
    await say("while locked 2");
    // A listing commits the writer's batch first: refused, it still answers.
    const listed = await store.conversations.listForConnection(conn.id);
    assertEquals(listed.map((c) => c.conversationId), ["#busy"]);
    other.exec("COMMIT");
    await poll("the held batch written", async () => {
      const page = await store.messages.historyOf(conv.id, { limit: 10 });
      return page.messages.length === 3;
    });
    const page = await store.messages.historyOf(conv.id, { limit: 10 });
    assertEquals(page.messages.map((m) => m.message), [
      "before",
      "while locked 1",
      "while locked 2",
    ]);
    const [row] = await store.conversations.listForConnection(conn.id);
    assertEquals(row.unread, 3, "the held batch's unread counts were kept too");
  } finally {
    other.close();
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sqlite writer: a connection's listing does not commit the writer's batch", async () => {
  const dir = await Deno.makeTempDir({ prefix: "parley-nocommit-" });
  const store = await openStore(dir);
  const other = new DatabaseSync(join(dir, "parley.db"), { readOnly: true });
  try {
    const user = await store.users.create("list@example.com", "x", []);
    const conn = await idleConnection(store, user.id, "irc-list", "list");
    const conv = await store.conversations.ensure(conn.id, "#list", "#list");
    const stored = () =>
      (other.prepare("SELECT count(*) AS n FROM messages").get() as { n: number }).n;
    await store.messages.append({
      conversation: conv.id,
      userId: user.id,
      from: "bob",
      type: "join",
      text: "bob joined.",
    });
    await store.messages.append({
      conversation: conv.id,
      userId: user.id,
      from: "bob",
      type: "private",
      text: "hi",
      unread: true,
    });
    // Each connect and disconnect lists its conversations: thousands of them must not each
    // force a commit.
    await store.conversations.listForConnection(conn.id, { unread: false });
    assertEquals(stored(), 0, "still in the writer's batch");
    const [listed] = await store.conversations.listForConnection(conn.id);
    assertEquals(stored(), 0, "a listing with counts adds the pending ones");
    assertEquals(listed.unread, 1);
  } finally {
    other.close();
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
