/**
 * Reading a soju database (import/soju_db.ts) on SQLite: rows mapped to what the import needs,
 * whatever form a distrusted file gives a flag in, messages paged by id, and a file that is no
 * soju database refused by name. (`tests/integration/import_soju_test.ts` imports a whole one, on
 * SQLite and PostgreSQL, through the CLI.)
 */
import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { openSojuDb } from "../../../import/soju_db.ts";

async function withDb(sql: string[], fn: (path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "parley-soju-test-" });
  const path = `${dir}/soju.db`;
  try {
    const db = new DatabaseSync(path);
    for (const s of sql) db.exec(s);
    db.close();
    await fn(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const TABLES = [
  `CREATE TABLE "User" (id INTEGER PRIMARY KEY, username TEXT, admin, realname TEXT, nick TEXT)`,
  `CREATE TABLE Network (id INTEGER PRIMARY KEY, name TEXT, user INTEGER, addr TEXT, nick TEXT,
    username TEXT, realname TEXT, pass TEXT, connect_commands TEXT, sasl_mechanism TEXT,
    sasl_plain_username TEXT, sasl_plain_password TEXT, enabled)`,
  `CREATE TABLE Channel (id INTEGER PRIMARY KEY, network INTEGER, name TEXT, key TEXT)`,
];

Deno.test("soju database: users and networks, flags in any form, commands split", async () => {
  await withDb([
    ...TABLES,
    `INSERT INTO "User" VALUES (1, 'alice', 1, 'Alice', 'al'), (2, 'bob', NULL, NULL, NULL),
      (3, 'carol', '1', '', ''), (4, 'dave', 0, '', '')`,
    `INSERT INTO Network VALUES
      (1, 'libera', 1, 'ircs://irc.libera.chat', 'al', '', '', '', 'JOIN #a' || char(13, 10) ||
        '  ' || char(13, 10) || 'MODE al +i', 'plain', 'al', 'pw', NULL),
      (2, NULL, 1, 'irc+insecure://h', '', '', '', 'secret', NULL, NULL, NULL, NULL, 0)`,
    `INSERT INTO Channel VALUES (1, 1, '#a', NULL), (2, 1, '#b', 'key')`,
  ], async (path) => {
    const db = await openSojuDb(path);
    try {
      const users = await db.users();
      assertEquals(users.map((u) => [u.username, u.admin]), [
        ["alice", true],
        ["bob", false],
        ["carol", true],
        ["dave", false],
      ]);
      assertEquals(users[1].realname, "", "NULL reads as empty");
      const [libera, other] = await db.networks();
      assertEquals(libera.connectCommands, ["JOIN #a", "MODE al +i"], "blank lines dropped");
      assertEquals(libera.saslMechanism, "PLAIN");
      assertEquals(libera.enabled, true, "NULL: enabled, soju's default");
      assertEquals([other.name, other.pass, other.enabled, other.connectCommands], [
        "",
        "secret",
        false,
        [],
      ]);
      assertEquals(await db.channels(), [
        { network: 1, name: "#a", key: "" },
        { network: 1, name: "#b", key: "key" },
      ]);
      assertEquals(await db.targets(), [], "no message tables: an older soju, or the fs store");
    } finally {
      await db.close();
    }
  });
});

Deno.test("soju database: a target's messages after an id, a page at a time", async () => {
  await withDb([
    ...TABLES,
    `CREATE TABLE MessageTarget (id INTEGER PRIMARY KEY, network INTEGER, target TEXT)`,
    `CREATE TABLE Message (id INTEGER PRIMARY KEY, target INTEGER, raw TEXT, time TEXT)`,
    `INSERT INTO MessageTarget VALUES (7, 1, '#a'), (8, 1, 'bob')`,
    `INSERT INTO Message VALUES (1, 7, 'PRIVMSG #a :one', '2026-01-01T00:00:01Z'),
      (2, 8, 'PRIVMSG al :other', '2026-01-01T00:00:02Z'),
      (3, 7, 'PRIVMSG #a :two', '2026-01-01T00:00:03Z'),
      (4, 7, 'PRIVMSG #a :three', '2026-01-01T00:00:04.5Z')`,
  ], async (path) => {
    const db = await openSojuDb(path);
    try {
      assertEquals(await db.targets(), [
        { id: 7, network: 1, target: "#a" },
        { id: 8, network: 1, target: "bob" },
      ]);
      const first = await db.messages(7, 0, 2);
      assertEquals(first.map((m) => m.id), [1, 3]);
      const rest = await db.messages(7, first[1].id, 2);
      assertEquals(rest, [{
        id: 4,
        raw: "PRIVMSG #a :three",
        time: Date.UTC(2026, 0, 1, 0, 0, 4, 500),
      }]);
      assertEquals(await db.messages(7, 4, 2), []);
    } finally {
      await db.close();
    }
  });
});

Deno.test("soju database: a file that is none is refused, naming the file", async () => {
  await withDb([`CREATE TABLE other (x)`], async (path) => {
    const err = await openSojuDb(path).then(() => undefined, (e: Error) => e);
    assert(err, "opened");
    assertStringIncludes(err.message, `cannot import ${path}`);
    assertStringIncludes(err.message, "not a soju database (it has no User table)");
  });
  const missing = await openSojuDb("/nonexistent/soju.db").then(() => undefined, (e: Error) => e);
  assertStringIncludes(missing?.message ?? "", "cannot import /nonexistent/soju.db");
});
