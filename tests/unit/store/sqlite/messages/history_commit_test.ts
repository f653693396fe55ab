/**
 * A history page commits only what its own conversation has pending: each of thousands of
 * connections registering reads a page of its server conversation, and a commit of the whole
 * batch for each was thousands of small transactions. Seen from a second connection to the
 * database, which sees only what is committed.
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { assertEquals } from "../../../../support/assert.ts";
import { openStore } from "../../../../../store/mod.ts";
import { idleConnection } from "../../../../support/backends.ts";

Deno.test("SQLite history: a page commits its own conversation's pending lines, not others'", async () => {
  const home = await Deno.makeTempDir({ prefix: "parley-history-commit-" });
  const store = await openStore(home);
  const observer = new DatabaseSync(join(home, "parley.db"), { readOnly: true });
  const committed = (conversation: number) =>
    (observer.prepare("SELECT count(*) AS n FROM messages WHERE conversation = ?")
      .get(conversation) as { n: number }).n;
  try {
    const user = await store.users.create("h@example.com", "x", []);
    const conn = await idleConnection(store, user.id);
    const a = (await store.conversations.ensure(conn.id, "#a", "#a")).id;
    const b = (await store.conversations.ensure(conn.id, "#b", "#b")).id;
    const line = (conversation: number, text: string) =>
      store.messages.append({ conversation, userId: user.id, from: "x", type: "private", text });
    await line(b, "waits in the batch");
    const empty = await store.messages.historyOf(a, { limit: 1 });
    assertEquals(empty.messages.length, 0);
    assertEquals(committed(b), 0, "#b's line is not committed by a read of #a");

    await line(a, "read back at once");
    const page = await store.messages.historyOf(a, { limit: 5 });
    assertEquals(page.messages.map((m) => m.message), ["read back at once"]);
    assertEquals(committed(a), 1, "a page reads its own pending lines");
    await store.messages.flush();
    assertEquals(committed(b), 1);
  } finally {
    observer.close();
    await store.close();
    await Deno.remove(home, { recursive: true });
  }
});
