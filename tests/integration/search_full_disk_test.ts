/**
 * The search index on a disk that fills up while messages keep being stored (parley.db still
 * has room; search.db, which grows with them, has none): the indexer says so once and waits,
 * searches answer at once from what is indexed, and once there is room it catches up, the same
 * worker throughout. search.db is on a small tmpfs of its own (mounting needs root, as the test
 * runner has on CI).
 *
 * @test-alone: the test reads the indexer's log by taking the process's console for a while,
 * which tests running beside it in the same process take and give back too.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals } from "../support/assert.ts";
import { poll } from "../support/poll.ts";
import { openMessageStore } from "../support/message_store.ts";
import { canMount, fillDisk, withSmallDisk } from "../support/small_disk.ts";
import { META } from "../../store/sqlite/search_file.ts";

Deno.test({
  name:
    "a full disk under the search index: it waits for room, then catches up, never started over",
  ignore: !canMount,
  fn: () =>
    withSmallDisk("8m", async (mnt) => {
      const home = await Deno.makeTempDir({ prefix: "parley-search-full-" });
      const dbPath = join(home, "parley.db");
      const searchPath = join(mnt, "search.db");
      const store = await openMessageStore(dbPath, searchPath);
      const { indexer } = store;
      const logged: string[] = [];
      const [log0, error0] = [console.log, console.error];
      console.log = console.error = (...a: unknown[]) => void logged.push(a.join(" "));
      const meta = new DatabaseSync(searchPath, { readOnly: true });
      const indexedUpTo = () =>
        (meta.prepare("SELECT value FROM search_meta WHERE key = ?").get(META.indexed) as {
          value: number;
        }).value;
      let n = 0;
      /** Stores `count` messages of words no other has, so that the index must grow. */
      const add = async (count: number) => {
        for (let i = 0; i < count; i++, n++) {
          await store.messages.append({
            conversation: 1,
            userId: 1,
            from: "bob",
            type: "private",
            text: `word${n}a word${n}b word${n}c ${crypto.randomUUID()} ${crypto.randomUUID()}`,
          });
        }
        await store.messages.flush();
        return n; // the last id: ids start at 1
      };
      try {
        const first = await add(10);
        await poll("the first messages indexed", () => indexedUpTo() >= first);

        await fillDisk(join(mnt, "filler"));
        const last = await add(5000);
        await poll("the indexer waiting for room", () =>
          logged.some((l) => l.includes("search index waits for room on the disk")), 20_000);
        // While the disk stays full the index never gets there: a search that waited for it
        // would still be waiting when the filler is removed below.
        let timer: ReturnType<typeof setTimeout> | undefined;
        const answered = await Promise.race([
          indexer.searchable(last).then(() =>
            true
          ),
          new Promise<false>((r) => timer = setTimeout(() => r(false), 10_000)),
        ]).finally(() => clearTimeout(timer));
        assert(answered, "a search does not wait for a full index");

        await Deno.remove(join(mnt, "filler"));
        await poll("every message indexed", () => indexedUpTo() >= last, 30_000);
        // The worker says so after the commit that went through, which the poll above may
        // have read before the word reached this thread.
        await poll("the indexer saying it has room again", () =>
          logged.some((l) =>
            l.includes("search index has room again")
          ), 5_000);
        assertEquals(
          logged.filter((l) =>
            l.includes("search indexer failed")
          ),
          [],
          "the worker was never started over",
        );
      } finally {
        console.log = log0;
        console.error = error0;
        meta.close();
        await store.close();
        await Deno.remove(home, { recursive: true });
      }
    }),
});
