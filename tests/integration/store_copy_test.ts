/**
 * `parley store copy --to postgres://...`: a SQLite installation moves into an empty PostgreSQL
 * database, and the PostgreSQL store reads back what SQLite held.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { parley } from "../support/cli.ts";
import { startPostgres } from "../support/postgres.ts";
import { openSqliteStore } from "../../store/sqlite/mod.ts";
import { connectPg } from "../../store/pg/db.ts";
import { openPgMessageStore } from "../../store/pg/messages.ts";
import { hashPassword } from "../../lib/password.ts";
import { loadVapidKeys } from "../../push/vapid.ts";
import { ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";

/** A data folder with a user, a conversation and some history. */
async function installation(): Promise<string> {
  const home = await Deno.makeTempDir({ prefix: "parley-copy-" });
  const store = await openSqliteStore(home);
  const user = await store.users.create(
    "mover@example.org",
    await hashPassword("correct horse battery"),
    ["admin"],
  );
  await store.settings.set({ organization_name: "Moved Ltd" });
  await store.files.save(
    { userId: user.id, name: "note.txt", type: "text/plain", writeOnly: false, replace: "note" },
    new Blob(["kept across the move"]).stream(),
    1000,
  );
  const conn = await store.connections.create({
    userId: user.id,
    connectionId: "irc-localhost",
    name: "home",
    url: "irc://127.0.0.1:6667?nick=mover",
    onConnectCommands: ["/msg nickserv hi"],
    wantedState: "connected",
  });
  const conv = await store.conversations.ensure(conn.id, "#moving", "#Moving");
  for (let i = 0; i < 2500; i++) {
    await store.messages.append({
      conversation: conv.id,
      userId: user.id,
      from: i % 2 ? "alice" : "bob",
      type: "private",
      text: i === 1234 ? "the kettle is müde today" : `line ${i}`,
      ts: 1_700_000_000_000_000 + i * 1000,
      highlight: i === 2000,
      unread: true,
    });
  }
  await store.close();
  return home;
}

Deno.test("store copy moves a SQLite installation into PostgreSQL", async (t) => {
  const pg = await startPostgres();
  const home = await installation();
  try {
    const url = await pg.database();
    await t.step("refuses a URL that is not PostgreSQL's", async () => {
      const r = await parley(["store", "copy", "--to", "mysql://x"], {
        env: { PARLEY_HOME: home },
      });
      assertEquals(r.code, 2, r.stderr);
      assertStringIncludes(r.stderr, "postgres://");
    });
    await t.step("refuses two targets at once", async () => {
      const r = await parley(["store", "copy", "--to", url], {
        env: { PARLEY_HOME: home, PARLEY_STORE_COPY_TO: url },
      });
      assertEquals(r.code, 2, r.stderr);
      assertStringIncludes(r.stderr, "give the target once");
    });
    await t.step("copies every table and says the counts match", async () => {
      // The URL holds a password: read from a file, it stays out of the process list.
      const file = await Deno.makeTempFile({ prefix: "parley-copy-url-" });
      await Deno.writeTextFile(file, `${url}\n`);
      // The Web Push keys, as the daemon makes them at its first start.
      loadVapidKeys(home);
      const r = await parley(["store", "copy", "--to-file", file], {
        env: { PARLEY_HOME: home },
      });
      await Deno.remove(file);
      assertEquals(r.code, 0, r.stderr + r.stdout);
      assertStringIncludes(r.stdout, "messages\t2500\t2500");
      assertStringIncludes(r.stdout, "every count matches");
      // Further nodes need the same secret and keys, which live in the data folder.
      assertStringIncludes(
        r.stdout,
        `Every further node needs copies of ${home}/secret and ${home}/vapid.json in its ` +
          "PARLEY_HOME",
      );
    });
    await t.step("the copy keeps ids and fills the search column", async () => {
      const sql = connectPg(url, 1);
      try {
        const messages = await openPgMessageStore(url);
        try {
          const found = await messages.search.forUser(1, { match: "müde", limit: 10 });
          assertEquals(found.messages.map((m) => m.message), ["the kettle is müde today"]);
          // A prefix is searched as the words it starts: the copy fills them in too.
          const prefix = await messages.search.forUser(1, { match: "müd", limit: 10 });
          assertEquals(prefix.messages.map((m) => m.message), ["the kettle is müde today"]);
          const page = await messages.historyOf(1, { limit: 3 });
          assertEquals(page.messages.map((m) => m.message), [
            "line 2497",
            "line 2498",
            "line 2499",
          ]);
        } finally {
          await messages.close();
        }
        // A new row gets an id past the copied ones.
        const [u] = await sql`INSERT INTO users (email) VALUES ('new@example.org') RETURNING id`;
        assertEquals(u.id, 2);
      } finally {
        await sql.end();
      }
    });
    await t.step("Parley on PostgreSQL serves the copied installation", async () => {
      const server = await startServer({
        home,
        env: { PARLEY_DATABASE_URL: url, PARLEY_LOG_LEVEL: "info" },
      });
      try {
        const api = new ApiClient(server.url);
        await api.login("mover@example.org");
        const page = await api.get(
          "/api/connection/irc-localhost/conversation/%23moving/messages?limit=2",
        );
        assertEquals(page.body.messages.map((m: { message: string }) => m.message), [
          "line 2498",
          "line 2499",
        ]);
        const found = await api.get("/api/search?match=kettle");
        assertEquals(found.body.messages.map((m: { message: string }) => m.message), [
          "the kettle is müde today",
        ]);
        const notes = await api.get("/api/notifications");
        assertEquals(notes.body.messages.map((m: { message: string }) => m.message), [
          "line 2000",
        ]);
        const file = await fetch(`${server.url}/api/files/1/note`);
        assertEquals(await file.text(), "kept across the move");
        const settings = await api.get("/api/settings");
        assertEquals(settings.body.organization_name, "Moved Ltd");
      } finally {
        await server.stop();
      }
    });
    await t.step(
      "refuses a database that already holds users (target from the environment)",
      async () => {
        const r = await parley(["store", "copy"], {
          env: { PARLEY_HOME: home, PARLEY_STORE_COPY_TO: url },
        });
        assertEquals(r.code, 2, r.stderr);
        assertStringIncludes(r.stderr, "already holds users");
      },
    );
  } finally {
    await pg.close();
    await Deno.remove(home, { recursive: true });
  }
});
