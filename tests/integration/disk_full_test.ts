/**
 * A full disk: SQLite refuses the message writer's batch (SQLITE_FULL, and it rolls the
 * transaction back itself). The messages are held in memory, bounded, and written once there is
 * room; nothing throws where no caller can catch it. The disk is SQLite's own limit on the
 * database's size (`max_page_count`), so the refusal is SQLite's real one.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals } from "../support/assert.ts";
import { poll } from "../support/poll.ts";
import { openMessageStore } from "../support/message_store.ts";
import { HOLD_LIMITS } from "../../store/sqlite/messages/writer.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function withStore(
  fn: (t: {
    append: (i: number) => Promise<unknown>;
    flush: () => Promise<void>;
    /** Lets the database grow `pages` past its size now (undefined: as far as SQLite allows). */
    room: (pages?: number) => void;
    texts: () => string[];
  }) => Promise<void>,
) {
  const home = await Deno.makeTempDir({ prefix: "parley-disk-full-" });
  const dbPath = join(home, "parley.db");
  const searchPath = join(home, "search.db");
  const store = await openMessageStore(dbPath, searchPath);
  const { db } = store;
  // What is committed, as another connection sees it.
  const reader = new DatabaseSync(dbPath, { readOnly: true });
  const saved = { ...HOLD_LIMITS };
  HOLD_LIMITS.retryMs = 100;
  try {
    await fn({
      append: (i) =>
        store.messages.append({
          conversation: 1,
          userId: 1,
          from: "bob",
          type: "private",
          text: `line ${i} ${"x".repeat(300)}`,
        }),
      flush: () => store.messages.flush(),
      room(pages) {
        const now = (db.prepare("PRAGMA page_count").get() as { page_count: number }).page_count;
        db.exec(`PRAGMA max_page_count = ${pages === undefined ? 4294967294 : now + pages}`);
      },
      texts: () =>
        (reader.prepare("SELECT text FROM messages ORDER BY id").all() as { text: string }[])
          .map((r) => r.text.slice(0, r.text.indexOf(" x"))),
    });
  } finally {
    Object.assign(HOLD_LIMITS, saved);
    reader.close();
    await store.close();
    await Deno.remove(home, { recursive: true });
  }
}

const lines = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}`);

Deno.test("a full disk holds messages until it has room; none is lost", async () => {
  await withStore(async ({ append, flush, room, texts }) => {
    await append(0);
    await flush();
    assertEquals(texts(), ["line 0"]);
    room(0); // the disk is full
    for (let i = 1; i <= 2000; i++) await append(i);
    await flush(); // a read commits first: refused, and nothing thrown
    await sleep(400); // a few tries of the held messages
    assertEquals(texts(), ["line 0"], "nothing written while the disk is full");
    room();
    await poll("the held messages written", () => texts().length === 2001);
    assertEquals(texts(), lines(0, 2000), "every one, in order");
  });
});

Deno.test("closing while the disk is full ends, and leaves no timer behind", async () => {
  await withStore(async ({ append, flush, room, texts }) => {
    await append(0);
    await flush();
    room(0);
    for (let i = 1; i <= 200; i++) await append(i); // more than the pages there are have room for
    await flush();
    assertEquals(texts(), ["line 0"]);
    // withStore closes the store now, with the disk still full; the test's sanitizers fail it if
    // the writer's retry timer is left running.
  });
});

Deno.test("held messages are bounded: past the bound the oldest go", async () => {
  await withStore(async ({ append, flush, room, texts }) => {
    HOLD_LIMITS.held = 100;
    await append(0);
    await flush();
    room(0);
    for (let i = 1; i <= 1500; i++) await append(i);
    await sleep(1000); // tries of the held messages, each keeping the newest 100
    room();
    await poll("the held messages written", () => texts().length > 1);
    await sleep(300);
    assertEquals(texts(), ["line 0", ...lines(1401, 1500)]);
  });
});

Deno.test("held messages are bounded in characters too: long lines keep fewer", async () => {
  await withStore(async ({ append, flush, room, texts }) => {
    // Each line is ~310 characters of text and 3 of sender: about 160 fit.
    HOLD_LIMITS.heldChars = 50_000;
    await append(0);
    await flush();
    room(0);
    for (let i = 1; i <= 1500; i++) await append(i);
    await sleep(1000); // tries of the held messages, each keeping the newest that fit
    room();
    await poll("the held messages written", () => texts().length > 1);
    await sleep(300);
    const kept = texts().slice(1);
    const first = 1501 - kept.length;
    assertEquals(kept, lines(first, 1500), "the newest, in order");
    assert(kept.length * 312 <= 50_000 && kept.length >= 150, `${kept.length} kept`);
  });
});
