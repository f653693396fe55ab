/**
 * The search indexer's pace: under steady commits its worker is told at most once per pace
 * (each indexing step costs the same whatever it carries), a search waiting for the index has
 * the held word sent at once, and nothing is left unindexed when nobody waits.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { assertEquals } from "../support/assert.ts";
import { poll } from "../support/poll.ts";
import { openMessageStore } from "../support/message_store.ts";
import { META } from "../../store/sqlite/search_file.ts";
import type { IndexerPace } from "../../store/sqlite/search_index.ts";

/** A message store whose indexer has `pace`; `run` gets it and a reader of the index's progress. */
async function withStore(
  pace: IndexerPace,
  run: (
    store: Awaited<ReturnType<typeof openMessageStore>>,
    add: () => Promise<number>,
    indexedUpTo: () => number,
  ) => Promise<void>,
) {
  const home = await Deno.makeTempDir({ prefix: "parley-search-pace-" });
  const searchPath = join(home, "search.db");
  const store = await openMessageStore(join(home, "parley.db"), searchPath, pace);
  const meta = new DatabaseSync(searchPath, { readOnly: true });
  const read = meta.prepare("SELECT value FROM search_meta WHERE key = ?");
  let n = 0;
  /** One message, committed on its own; returns its id (ids start at 1). */
  const add = async () => {
    await store.messages.append({
      conversation: 1,
      userId: 1,
      from: "bob",
      type: "private",
      text: `message ${++n}`,
    });
    await store.messages.flush();
    return n;
  };
  try {
    await run(store, add, () => (read.get(META.indexed) as { value: number }).value);
  } finally {
    meta.close();
    await store.close();
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("steady commits tell the indexer once per pace; a waiting search is told at once", async () => {
  const told: number[] = [];
  await withStore(
    { workPaceMs: 600_000, onWork: (id) => told.push(id) },
    async (store, add, indexedUpTo) => {
      await add();
      await poll("the first message indexed", () => indexedUpTo() >= 1);
      for (let i = 0; i < 5; i++) await add();
      assertEquals(
        told,
        [2],
        "the first commit starts the worker, the second tells it, the rest wait",
      );

      await store.indexer.searchable(6, Infinity);
      assertEquals(told, [2, 6], "a search waiting for the index sends the held word at once");
      assertEquals(indexedUpTo(), 6);

      await add();
      assertEquals(told, [2, 6], "held again: the pace counts from the last word");
      await store.messages.searchable();
      assertEquals(told, [2, 6, 7], "waiting for everything sends it too");
      assertEquals(indexedUpTo(), 7);

      // A deletion is told at once: retention waits for the index to drop what it deleted.
      await store.messages.clear(1);
      assertEquals(told, [2, 6, 7, 7], "a conversation cleared tells the worker at once");
    },
  );
});

Deno.test("a held word goes when the pace has passed, with nobody waiting", async () => {
  const told: number[] = [];
  await withStore(
    { workPaceMs: 50, onWork: (id) => told.push(id) },
    async (_store, add, indexedUpTo) => {
      await add(); // starts the worker
      for (let i = 0; i < 3; i++) await add();
      await poll("the last message indexed", () => indexedUpTo() >= 4);
      assertEquals(told.at(-1), 4, "the last word carries the last commit");
    },
  );
});
