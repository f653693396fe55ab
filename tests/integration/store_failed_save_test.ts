/**
 * A file save whose row cannot be written (here: a user that does not exist) keeps none of the
 * contents it had already stored: no file on disk (SQLite), no blob (PostgreSQL). A save that
 * replaces a file keeps no copy of the replaced contents.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startPostgres } from "../support/postgres.ts";
import { sqliteBackend } from "../../store/sqlite/mod.ts";
import { pgBackend, type PgStore } from "../../store/pg/mod.ts";
import type { Store } from "../../store/mod.ts";

function stream(...parts: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return ReadableStream.from(parts.map((p) => enc.encode(p)));
}

const NOBODY = 999_999;

async function saveForNobody(store: Store): Promise<void> {
  let failed = false;
  try {
    await store.files.save(
      { userId: NOBODY, name: "a.txt", type: "text/plain", writeOnly: false },
      stream("contents"),
      100,
    );
  } catch {
    failed = true;
  }
  assert(failed, "a save for a user that does not exist fails");
}

async function entries(dir: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) out.push(e.name);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return out;
}

Deno.test("sqlite: a save whose row fails leaves no file on disk", async () => {
  const home = await Deno.makeTempDir({ prefix: "parley-files-" });
  const store = await sqliteBackend.open(home);
  try {
    await saveForNobody(store);
    assertEquals(await entries(`${home}/files/${NOBODY}`), []);
  } finally {
    await store.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("postgres: a failed save and a replaced file leave no blob behind", async () => {
  const server = await startPostgres();
  const store = await pgBackend.open("", await server.database()) as PgStore;
  try {
    const blobs = async () =>
      (await store.sql`SELECT DISTINCT blob FROM file_blobs ORDER BY blob`).map((r) => r.blob);
    const uploads = async () => (await store.sql`SELECT blob FROM file_uploads`).length;
    await saveForNobody(store);
    assertEquals([await blobs(), await uploads()], [[], 0]);

    const user = await store.users.create("f@example.org", "hash", []);
    const file = { userId: user.id, name: "a.txt", type: "text/plain", writeOnly: false };
    await store.files.save({ ...file, replace: "key" }, stream("first"), 100);
    await store.files.save({ ...file, replace: "key" }, stream("second"), 100);
    const [{ blob }] = await store.sql`SELECT blob FROM files WHERE file_id = 'key'`;
    assertEquals([await blobs(), await uploads()], [[blob], 0]);
  } finally {
    await store.close();
    await server.close();
  }
});
