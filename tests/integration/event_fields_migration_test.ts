/**
 * Channel events stored as sentences by earlier versions become data: a database at the schema
 * just before the `event_fields` migration (SQLite 024, PostgreSQL 020) holding every kind of
 * event exactly as the old code wrote it is opened by the store, which migrates it. Each row then has its fields, the history API
 * says it in the same words as before, the bouncer makes the same IRC line as the old regexes
 * did, and a row whose text is not a sentence Parley wrote keeps it, shown as it was.
 */
import { DatabaseSync } from "node:sqlite";
import { assertEquals } from "../support/assert.ts";
import { startPostgres } from "../support/postgres.ts";
import { migrate, sqliteMigrations } from "../../store/sqlite/migrate.ts";
import { openSqliteStore } from "../../store/sqlite/mod.ts";
import { connectPg, migratePg, PG_MIGRATIONS_DIR } from "../../store/pg/db.ts";
import { openPgStore } from "../../store/pg/mod.ts";
import { loadMigrations, type Migration } from "../../store/migration_files.ts";
import { TYPE_CODE } from "../../protocol/messages.ts";
import type { MessageType } from "../../protocol/events.ts";
import type { Store } from "../../store/mod.ts";
import { withSentences } from "../../routes/messages_text.ts";
import { historyLine } from "../../bouncer/history/lines.ts";
import { ircLower } from "../../lib/casefold.ts";

const T0 = Date.UTC(2026, 0, 1) * 1000;

/** The migrations before the one that makes events data: the schema the old code wrote. */
function before(migrations: Migration[]): Migration[] {
  const at = migrations.find((m) => m.name === "event_fields")!.version;
  return migrations.filter((m) => m.version < at);
}

/**
 * Rows as the old code stored them (sender, type, text: irc/chat/inbound/membership.ts and
 * channel.ts before events were data), the fields each becomes, and the IRC line the bouncer
 * made of it (bouncer/history/lines.ts's regexes), without tags; undefined: none.
 */
const ROWS: [
  string,
  MessageType,
  string,
  Record<string, string> | undefined,
  string | undefined,
][] = [
  ["bob", "join", "bob joined.", { nick: "bob" }, ":bob JOIN #Chan"],
  ["bob", "part", "bob left.", { nick: "bob" }, ":bob PART #Chan"],
  [
    "bob",
    "part",
    "bob left: see you: later",
    { nick: "bob", message: "see you: later" },
    ":bob PART #Chan :see you: later",
  ],
  [
    "zoë",
    "part",
    "zoë left: ciao 👋",
    { nick: "zoë", message: "ciao 👋" },
    ":zoë PART #Chan :ciao 👋",
  ],
  ["bob", "quit", "bob quit.", { nick: "bob" }, ":bob QUIT :"],
  ["bob", "quit", 'bob quit: "gone"', { nick: "bob", message: '"gone"' }, ':bob QUIT "gone"'],
  [
    "bobby",
    "kick",
    "carol was kicked by bobby.",
    { nick: "carol", kicker: "bobby" },
    ":bobby KICK #Chan carol :",
  ],
  [
    "bobby",
    "kick",
    "carol was kicked by bobby: out: now",
    { nick: "carol", kicker: "bobby", message: "out: now" },
    ":bobby KICK #Chan carol :out: now",
  ],
  [
    "bob",
    "nick_change",
    "bob is now known as bobby.",
    { old_nick: "bob", new_nick: "bobby" },
    ":bob NICK bobby",
  ],
  [
    "bob",
    "topic",
    "bob changed the topic to: a: b",
    { nick: "bob", topic: "a: b" },
    ":bob TOPIC #Chan :a: b",
  ],
  ["bob", "topic", "bob cleared the topic.", { nick: "bob", topic: "" }, ":bob TOPIC #Chan :"],
  [
    "bob",
    "mode",
    "bob set mode +o bob.",
    { nick: "bob", mode: "+o bob" },
    ":bob MODE #Chan +o bob",
  ],
  [
    "irc.example",
    "mode",
    "irc.example set mode +bv *!*@x dana.",
    { nick: "irc.example", mode: "+bv *!*@x dana" },
    ":irc.example MODE #Chan +bv *!*@x dana",
  ],
  // A nick with LIKE's wildcards reads as itself.
  ["a_b%", "join", "a_b% joined.", { nick: "a_b%" }, ":a_b% JOIN #Chan"],
  // Not sentences Parley wrote: kept as text, shown as it was, no IRC line.
  ["bob", "join", "someone else joined.", undefined, undefined],
  ["bob", "kick", "bob kicked everyone", undefined, undefined],
  ["bob", "mode", "bob set mode .", undefined, undefined],
  ["bob", "nick_change", "bob is now known as two words.", undefined, undefined],
  // Not channel events: untouched.
  ["bob", "private", "bob joined.", undefined, ":bob PRIVMSG #Chan :bob joined."],
  ["bob", "react", "👍", undefined, undefined],
];

/** Reads the migrated conversation back through the store, the API's words and the bouncer. */
async function check(store: Store, conversation: number) {
  const page = await store.messages.historyOf(conversation, { limit: 100 });
  assertEquals(page.messages.length, ROWS.length);
  const said = withSentences(page).messages;
  ROWS.forEach(([sender, type, text, fields], i) => {
    const m = page.messages[i];
    assertEquals([m.from, m.type], [sender, type], `row ${i}`);
    assertEquals(m.fields, fields, `row ${i}: fields of "${text}"`);
    // A converted event's text is gone; one it could not read keeps its own.
    if (fields) assertEquals(m.message, "", `row ${i}: no sentence stored`);
    assertEquals(said[i].message, text, `row ${i}: the API says what it said before`);
  });
  const lines = await store.messages.history!.lines(conversation, {
    after: 0,
    before: Number.MAX_SAFE_INTEGER,
    limit: 100,
    newest: false,
    events: true,
  });
  const target = {
    name: "#Chan",
    conversationId: "#chan",
    isChannel: true,
    nick: "alice",
    fold: ircLower,
  };
  const irc = lines.map((l) => historyLine(l, target)?.replace(/^@\S+ /, ""));
  assertEquals(irc, ROWS.map((r) => r[4]));
}

Deno.test("event fields migration: SQLite 024 reads every old sentence", async () => {
  const home = await Deno.makeTempDir({ prefix: "parley-events-migration-" });
  try {
    const db = new DatabaseSync(`${home}/parley.db`);
    migrate(db, before(await sqliteMigrations()));
    db.exec(`INSERT INTO users (id, email, password_hash, registered)
      VALUES (1, 'alice@example.com', 'x', 0)`);
    db.exec(`INSERT INTO connections (id, user_id, connection_id, name, url, created)
      VALUES (1, 1, 'irc-example', 'example', 'irc://127.0.0.1:6667?nick=alice', 0)`);
    db.exec(`INSERT INTO conversations (id, connection, conversation_id, name, created)
      VALUES (1, 1, '#chan', '#Chan', 0)`);
    const insert = db.prepare(`INSERT INTO messages (id, conversation, user_id, ts, type, sender,
      text) VALUES (?, 1, 1, ?, ?, ?, ?)`);
    ROWS.forEach(([sender, type, text], i) => {
      insert.run(i + 1, T0 + i * 1000, TYPE_CODE[type], sender, text);
    });
    db.exec(`UPDATE message_ids SET next = ${ROWS.length + 1}`);
    db.close();

    const store = await openSqliteStore(home);
    try {
      await check(store, 1);
    } finally {
      await store.close();
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("event fields migration: PostgreSQL 020 reads every old sentence", async () => {
  const pg = await startPostgres();
  try {
    const url = await pg.database();
    const sql = connectPg(url, 1);
    try {
      const migrations = await loadMigrations(PG_MIGRATIONS_DIR);
      await migratePg(sql, before(migrations));
      await sql`INSERT INTO users (id, email, password_hash, registered)
        VALUES (1, 'alice@example.com', 'x', 0)`;
      await sql`INSERT INTO connections (id, user_id, connection_id, name, url, created)
        VALUES (1, 1, 'irc-example', 'example', 'irc://127.0.0.1:6667?nick=alice', 0)`;
      await sql`INSERT INTO conversations (id, connection, conversation_id, name, created)
        VALUES (1, 1, '#chan', '#Chan', 0)`;
      for (const [i, [sender, type, text]] of ROWS.entries()) {
        await sql`INSERT INTO messages (id, conversation, user_id, ts, type, sender, text, words)
          VALUES (${i + 1}, 1, 1, ${T0 + i * 1000}, ${TYPE_CODE[type]}, ${sender}, ${text}, '')`;
      }
      await sql`SELECT setval('messages_id_seq', ${ROWS.length})`;
    } finally {
      await sql.end();
    }
    const store = await openPgStore(url);
    try {
      await check(store, 1);
    } finally {
      await store.close();
    }
  } finally {
    await pg.close();
  }
});
