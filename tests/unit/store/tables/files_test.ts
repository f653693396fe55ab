/**
 * The files group's rows, written once (store/tables/files.ts), over each backend's executor and
 * real tables, with contents that record what the rows ask of them: new contents are kept inside
 * the row's transaction (and a failure there leaves no row), contents whose row failed are dropped,
 * replacing passes the replaced row, saves of one key take turns, removals hand over the deleted
 * rows, and pages and cursors read the same on both.
 */
import { sql } from "kysely";
import { assert, assertEquals, assertRejects } from "../../../support/assert.ts";
import { poll } from "../../../support/poll.ts";
import { type PgServer, startPostgres } from "../../../support/postgres.ts";
import { openDatabase } from "../../../../store/sqlite/db.ts";
import { migrate, sqliteMigrations } from "../../../../store/sqlite/migrate.ts";
import { sqliteTables } from "../../../../store/sqlite/tables.ts";
import { connectPg, migratePg } from "../../../../store/pg/db.ts";
import { pgTables } from "../../../../store/pg/tables.ts";
import type { TableDb, Transaction } from "../../../../store/tables/db.ts";
import { type FileContents, fileStore } from "../../../../store/tables/files.ts";
import { userStore } from "../../../../store/tables/users.ts";
import {
  type FileRecord,
  type FileStore,
  FileTooLargeError,
  UnknownCursorError,
} from "../../../../store/files.ts";

/** No bound on a user's files (the quota has its own test, through the store). */
const noQuota = () => Promise.resolve(0);

/** A backend's executor over a freshly migrated database. */
interface Opened {
  db: TableDb;
  /** Another node's executor on the same database (SQLite has one node: `db` again). */
  other: TableDb;
  /** Whether its rows keep a reference to the contents (PostgreSQL's `blob`). */
  blobs: boolean;
  close(): Promise<void>;
}

const BACKENDS: Record<string, () => Promise<Opened>> = {
  async sqlite() {
    const db = openDatabase(":memory:");
    migrate(db, await sqliteMigrations());
    const tables = sqliteTables(db);
    return {
      db: tables,
      other: tables,
      blobs: false,
      close: () => Promise.resolve(db.close()),
    };
  },
  async postgres() {
    const server: PgServer = await startPostgres();
    const url = await server.database();
    const pool = connectPg(url, 2);
    const otherPool = connectPg(url, 2);
    await migratePg(pool);
    return {
      db: pgTables(pool),
      other: pgTables(otherPool),
      blobs: true,
      async close() {
        await pool.end();
        await otherPool.end();
        await server.close();
      },
    };
  },
};

/** Contents that hold nothing but say what was asked of them, in order. */
function recording(blobs: boolean) {
  const calls: string[] = [];
  let n = 0;
  const control: {
    failKeep: boolean;
    /** Run inside the first keep, its row's transaction still open. */
    holdFirst?: (tx: Transaction) => Promise<unknown>;
  } = { failKeep: false };
  const contents: FileContents = {
    async write(_userId, content, maxBytes) {
      let size = 0;
      for await (const chunk of content) {
        size += chunk.length;
        if (size > maxBytes) throw new FileTooLargeError("The file is too large.");
      }
      const name = `c${++n}`;
      calls.push(`write ${name}`);
      return {
        size,
        blob: blobs ? 100 + n : undefined,
        async keep(tx, id, previous) {
          // Inside the row's transaction: the row it just wrote is there to read.
          const row = await tx.first(
            tx.q.selectFrom("files").select("file_id").where("file_id", "=", id),
          );
          assert(row, "keep runs after the row is written");
          calls.push(`keep ${name} as ${id}, replacing ${previous?.file_id ?? "none"}`);
          if (blobs) assertEquals(typeof previous?.blob, previous ? "number" : "undefined");
          if (control.failKeep) throw new Error("keep failed");
          const hold = control.holdFirst;
          control.holdFirst = undefined;
          await hold?.(tx);
        },
        drop() {
          calls.push(`drop ${name}`);
          return Promise.resolve();
        },
      };
    },
    open: () => Promise.resolve(ReadableStream.from([])),
    remove(row) {
      calls.push(`remove ${row.file_id}${blobs ? ` blob ${row.blob}` : ""}`);
      return Promise.resolve();
    },
    removeUser(userId, rows) {
      calls.push(`removeUser ${userId}: ${rows.map((r) => r.file_id).sort().join(" ")}`);
      return Promise.resolve();
    },
  };
  return { contents, calls, control };
}

function bytes(text: string): ReadableStream<Uint8Array> {
  return ReadableStream.from([new TextEncoder().encode(text)]);
}

for (const [backend, open] of Object.entries(BACKENDS)) {
  Deno.test(`files' rows over ${backend}'s executor`, async (t) => {
    const opened = await open();
    const { db, blobs } = opened;
    const { q } = db;
    const users = userStore(db);
    let m = 0;
    const fresh = async () => {
      const user = await users.create(`u${++m}@example.org`, "hash", []);
      const { contents, calls, control } = recording(blobs);
      return { userId: user.id, files: fileStore(db, contents, noQuota), calls, control };
    };
    const save = (files: FileStore, userId: number, name: string, replace?: string) =>
      files.save({ userId, name, type: "text/plain", writeOnly: false, replace }, bytes(name), 100);
    try {
      await t.step("a save keeps its contents in the row's transaction", async () => {
        const { userId, files, calls } = await fresh();
        const f = await save(files, userId, "a.txt");
        assertEquals([f.name, f.size, f.type, f.writeOnly], ["a.txt", 5, "text/plain", false]);
        assertEquals(calls, ["write c1", `keep c1 as ${f.id}, replacing none`]);
        assertEquals(await files.find(userId, f.id), f);
        assertEquals(await files.get(f.id), f);
      });

      await t.step("contents that cannot be kept leave no row, and are dropped", async () => {
        const { userId, files, calls, control } = await fresh();
        control.failKeep = true;
        const err = await assertRejects(() => save(files, userId, "a.txt", "key"));
        assertEquals(err.message, "keep failed");
        assertEquals(calls, ["write c1", "keep c1 as key, replacing none", "drop c1"]);
        assertEquals(await files.find(userId, "key"), undefined);
      });

      await t.step("a row that cannot be written drops its contents", async () => {
        const { files, calls } = await fresh();
        await assertRejects(() => save(files, 999_999, "a.txt"));
        assertEquals(calls, ["write c1", "drop c1"]);
      });

      await t.step("usage: every file of the user, a replaced one once", async () => {
        const { userId, files } = await fresh();
        const bounded = fileStore(db, recording(blobs).contents, () => Promise.resolve(50));
        assertEquals(await files.usage(userId), { bytes: 0, max: 0 });
        await save(files, userId, "a.txt");
        await save(files, userId, "bb.txt", "key");
        await save(files, userId, "ccc.txt", "key");
        const other = await fresh();
        await save(other.files, other.userId, "d.txt");
        assertEquals(await files.usage(userId), { bytes: 5 + 7, max: 0 });
        assertEquals(await bounded.usage(userId), { bytes: 12, max: 50 });
      });

      await t.step("refused contents write no row", async () => {
        const { userId, files, calls } = await fresh();
        const err = await assertRejects(() =>
          files.save(
            { userId, name: "big", type: "x", writeOnly: true },
            bytes("x".repeat(101)),
            100,
          )
        );
        assert(err instanceof FileTooLargeError);
        assertEquals([calls, (await files.page(userId, undefined, 10)).files], [[], []]);
      });

      await t.step(
        "replace: same id and seq, new row values, the replaced row handed over",
        async () => {
          const { userId, files, calls } = await fresh();
          const one = await save(files, userId, "one.txt", "key");
          const two = await files.save(
            { userId, name: "two.txt", type: "image/png", writeOnly: true, replace: "key" },
            bytes("second"),
            100,
          );
          assertEquals([two.id, two.seq], [one.id, one.seq]);
          assertEquals([two.name, two.size, two.type, two.writeOnly], [
            "two.txt",
            6,
            "image/png",
            true,
          ]);
          assertEquals(calls.slice(2), ["write c2", "keep c2 as key, replacing key"]);
          assertEquals((await files.page(userId, undefined, 10)).files, [two]);
        },
      );

      await t.step("saves of one new key take turns, from two nodes too", async () => {
        const { userId, files, calls, control } = await fresh();
        const theirs = recording(blobs);
        const other = fileStore(opened.other, theirs.contents, noQuota);
        let second: Promise<FileRecord> | undefined;
        // The first save starts the other node's while its own transaction is open, and on
        // PostgreSQL holds it until that one waits on a lock (the user's, or without it the
        // unique key its insert would collide on).
        control.holdFirst = async () => {
          second = save(other, userId, "2.txt", "same");
          if (backend !== "postgres") return;
          // Read outside the transaction: inside, pg_stat_activity stays as first read.
          const waiting = q.selectFrom(sql`pg_stat_activity`.as("a"))
            .select((e) => e.fn.countAll<number>().as("n"))
            .where(sql.ref("wait_event_type"), "=", "Lock");
          await poll(
            "the other node's save waits",
            async () => Number((await db.first(waiting))!.n) >= 1 || undefined,
          );
        };
        const first = await save(files, userId, "1.txt", "same");
        assertEquals((await second!).seq, first.seq);
        assertEquals((await files.page(userId, undefined, 10)).files.map((f) => f.name), ["2.txt"]);
        assertEquals(calls, ["write c1", "keep c1 as same, replacing none"]);
        assertEquals(theirs.calls, ["write c1", "keep c1 as same, replacing same"]);
      });

      await t.step("get: a chosen id of several users names the oldest", async () => {
        const a = await fresh();
        const b = await fresh();
        const first = await save(a.files, a.userId, "a.txt", "shared-key");
        await save(b.files, b.userId, "b.txt", "shared-key");
        assertEquals((await a.files.get("shared-key"))?.seq, first.seq);
        assertEquals(await a.files.find(b.userId, "nope"), undefined);
      });

      await t.step("pages newest first, with Convos's cursors", async () => {
        const { userId, files } = await fresh();
        const saved = [];
        for (let i = 0; i < 5; i++) saved.push(await save(files, userId, `${i}.txt`));
        const names = (p: { files: { name: string }[] }) => p.files.map((f) => f.name);
        const first = await files.page(userId, undefined, 2);
        assertEquals([names(first), first.after, first.prev, first.next], [
          ["4.txt", "3.txt"],
          undefined,
          undefined,
          saved[2].id,
        ]);
        assertEquals(await files.page(userId, "after", 2), first);
        const second = await files.page(userId, saved[3].id, 2);
        assertEquals([names(second), second.after, second.prev, second.next], [
          ["2.txt", "1.txt"],
          saved[3].id,
          "prev",
          saved[0].id,
        ]);
        const last = await files.page(userId, saved[1].id, 2);
        assertEquals([names(last), last.prev, last.next], [["0.txt"], saved[3].id, undefined]);
        const err = await assertRejects(() => files.page(userId, "nope", 2));
        assert(err instanceof UnknownCursorError);
      });

      await t.step("remove and removeUser hand the deleted rows to the contents", async () => {
        const a = await fresh();
        const b = await fresh();
        const f = await save(a.files, a.userId, "a.txt", "a-key");
        await save(a.files, a.userId, "b.txt", "b-key");
        const theirs = await save(b.files, b.userId, "c.txt", "c-key");
        assertEquals(await a.files.remove(a.userId, [f.id, f.id, theirs.id, "nope"]), 1);
        assertEquals(a.calls.slice(4), [`remove a-key${blobs ? " blob 101" : ""}`]);
        assertEquals((await b.files.find(b.userId, theirs.id))?.id, "c-key");
        await a.files.removeUser(a.userId);
        assertEquals(a.calls.slice(5), [`removeUser ${a.userId}: b-key`]);
        assertEquals((await a.files.page(a.userId, undefined, 10)).files, []);
        assertEquals((await b.files.page(b.userId, undefined, 10)).files.length, 1);
      });
    } finally {
      await opened.close();
    }
  });
}
