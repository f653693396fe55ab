/**
 * `parley import soju` on a soju database (the tables soju's schema declares, in SQLite and in
 * PostgreSQL) with both of its message stores: `db` (raw IRC lines in `Message`) and `fs` (day
 * files in ZNC's format, written in the local time of soju's machine); messages and channel
 * events of both, then the daemon serving them.
 */
import { DatabaseSync } from "node:sqlite";
import postgres from "postgres";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { parley } from "../support/cli.ts";
import { startPostgres } from "../support/postgres.ts";

/** Column types per backend: soju's SQLite schema uses integers for booleans, PostgreSQL booleans. */
const TABLES = (pg: boolean) => {
  const id = pg ? "SERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY";
  const bool = (d: boolean) =>
    pg ? `BOOLEAN NOT NULL DEFAULT ${d}` : `INTEGER NOT NULL DEFAULT ${+d}`;
  const time = pg ? "TIMESTAMP WITH TIME ZONE" : "TEXT";
  return [
    `CREATE TABLE "User" (id ${id}, username TEXT NOT NULL UNIQUE, password TEXT,
      admin ${bool(false)}, realname TEXT, nick TEXT, created_at ${time} NOT NULL,
      enabled ${
      bool(true)
    }, downstream_interacted_at ${time}, max_networks INTEGER NOT NULL DEFAULT -1)`,
    `CREATE TABLE "Network" (id ${id}, name TEXT, "user" INTEGER NOT NULL, addr TEXT NOT NULL,
      nick TEXT, username TEXT, realname TEXT, certfp TEXT, pass TEXT, connect_commands TEXT,
      sasl_mechanism TEXT, sasl_plain_username TEXT, sasl_plain_password TEXT,
      sasl_external_cert ${pg ? "BYTEA" : "BLOB"}, sasl_external_key ${pg ? "BYTEA" : "BLOB"},
      auto_away ${bool(true)}, enabled ${bool(true)})`,
    `CREATE TABLE "Channel" (id ${id}, network INTEGER NOT NULL, name TEXT NOT NULL, key TEXT,
      detached ${
      bool(false)
    }, detached_internal_msgid TEXT, relay_detached INTEGER NOT NULL DEFAULT 0,
      reattach_on INTEGER NOT NULL DEFAULT 0, detach_after INTEGER NOT NULL DEFAULT 0,
      detach_on INTEGER NOT NULL DEFAULT 0)`,
    `CREATE TABLE "MessageTarget" (id ${id}, network INTEGER NOT NULL, target TEXT NOT NULL,
      pinned ${bool(false)}, muted ${bool(false)}, blocked ${bool(false)})`,
    `CREATE TABLE "Message" (id ${id}, target INTEGER NOT NULL, raw TEXT NOT NULL,
      time ${time} NOT NULL, sender TEXT NOT NULL, text TEXT)`,
  ];
};

type Value = string | number | boolean | null;
/** The rows, by table; ids are given so that references hold on both backends. */
const ROWS: [string, Record<string, Value>][] = [
  ["User", {
    id: 1,
    username: "alice",
    admin: true,
    nick: "alice",
    realname: "Alice",
    created_at: "2025-01-01T00:00:00Z",
  }],
  ["User", {
    id: 2,
    username: "bob",
    admin: false,
    nick: null,
    created_at: "2025-01-01T00:00:00Z",
  }],
  ["Network", {
    id: 1,
    name: "libera",
    user: 1,
    addr: "ircs://irc.libera.chat:6697",
    nick: null,
    connect_commands: "PRIVMSG NickServ :IDENTIFY hunter2\r\nMODE alice +i",
    sasl_mechanism: "PLAIN",
    sasl_plain_username: "alice-acct",
    sasl_plain_password: "pa ss",
  }],
  ["Network", {
    id: 2,
    name: null,
    user: 1,
    addr: "irc.example.org",
    pass: "srvpass",
    enabled: false,
  }],
  ["Network", { id: 3, name: "sock", user: 1, addr: "irc+unix:///run/irc.sock" }],
  ["Network", {
    id: 4,
    name: "local",
    user: 2,
    addr: "irc+insecure://127.0.0.1:6667",
    realname: "Bob B",
  }],
  ["Channel", { id: 1, network: 1, name: "#soju", key: null }],
  ["Channel", { id: 2, network: 1, name: "#Secret", key: "k3y", detached: true }],
  ["Channel", { id: 3, network: 4, name: "#parley" }],
  ["MessageTarget", { id: 1, network: 1, target: "#soju" }],
  ["MessageTarget", { id: 2, network: 1, target: "dave" }],
  ["Message", {
    id: 1,
    target: 1,
    time: "2025-03-01T10:00:00.123Z",
    sender: "dave",
    raw: "@time=2025-03-01T10:00:00.123Z;msgid=a :dave!d@h PRIVMSG #soju :hello alice",
  }],
  ["Message", {
    id: 2,
    target: 1,
    time: "2025-03-01T10:00:01Z",
    sender: "dave",
    raw: ":dave!d@h JOIN #soju",
  }],
  ["Message", {
    id: 3,
    target: 1,
    time: "2025-03-01T10:00:02Z",
    sender: "alice",
    raw: ":alice!a@h PRIVMSG #soju :\x01ACTION waves\x01",
  }],
  ["Message", {
    id: 4,
    target: 1,
    time: "2025-03-01T10:00:03Z",
    sender: "ChanServ",
    raw: ":ChanServ!s@h NOTICE #soju :welcome to #soju",
  }],
  ["Message", {
    id: 5,
    target: 1,
    time: "2025-03-01T10:00:04Z",
    sender: "dave",
    raw: ":dave!d@h PRIVMSG #soju :\x01VERSION\x01",
  }],
  ["Message", {
    id: 6,
    target: 2,
    time: "2025-03-01T11:00:00Z",
    sender: "dave",
    raw: ":dave!d@h PRIVMSG alice :psst, a soju secret",
  }],
  // Channel events as soju's db store keeps them (the raw lines of upstream.go's appendLog).
  ...([
    [7, 1, "10:00:05", "@time=2025-03-01T10:00:05Z :alice!a@h TOPIC #soju :soju's 'topic' (new)"],
    [8, 1, "10:00:06", ":alice!a@h MODE #soju +o dave"],
    // A user mode: no conversation's (skipped).
    [9, 1, "10:00:07", ":alice!a@h MODE alice :+i"],
    [10, 1, "10:00:08", ":dave!d@h NICK dave_"],
    [11, 1, "10:00:09", ":dave_!d@h PART #soju :brb (soon)"],
    [12, 1, "10:00:10", ":dave_!d@h JOIN #soju"],
    [13, 1, "10:00:11", ":alice!a@h KICK #soju dave_ :enough"],
    [14, 1, "10:00:12", ":erin!e@h QUIT :Quit: bye"],
    // A kick of no one (skipped).
    [15, 1, "10:00:13", ":alice!a@h KICK #soju"],
    // A join in a private conversation (skipped); a quit is kept there, as Parley keeps it.
    [16, 2, "11:00:01", ":dave!d@h JOIN #soju"],
    [17, 2, "11:00:02", ":dave!d@h QUIT"],
  ] as const).map(([id, target, time, raw]): [string, Record<string, Value>] => [
    "Message",
    { id, target, time: `2025-03-01T${time}Z`, sender: "x", raw },
  ]),
];

/** soju's fs store for bob: times in New York (DST ends 2025-11-02 at 02:00, 01:00-02:00 twice). */
const LOGS: Record<string, string> = {
  "bob/local/#parley/2025-03-01.log": "[10:00:00] <dave> morning bob\n" +
    "[10:00:00] *** Joins: erin (e@h)\n" +
    "[10:00:05] * erin waves\n" +
    "[10:00:06] -ChanServ- the notice\n" +
    "[10:00:06] <bob> hi all\n" +
    // Channel events as soju's znclog writer writes them.
    "[10:00:07] *** erin is now known as erin_\n" +
    "[10:00:08] *** erin_ changes topic to 'it's 'fine''\n" +
    "[10:00:09] *** bob sets mode: +v erin_\n" +
    "[10:00:10] *** Parts: erin_ (e@h) ()\n" +
    "[10:00:11] *** Joins: erin_ (e@h)\n" +
    "[10:00:12] *** erin_ was kicked by bob (bye (now))\n" +
    "[10:00:13] *** Quits: dave (d@h) (Ping timeout: 120 seconds)\n" +
    // Neither an event nor well formed (skipped).
    "[10:00:14] *** something else entirely\n" +
    "[10:00:15] *** Joins: \n",
  "bob/local/#parley/2025-11-02.log":
    "[01:30:00] <dave> first pass\n[01:10:00] <dave> second pass\n",
  "bob/local/erin/2025-03-02.log": "[23:59:58] *** Joins: erin (e@h)\n" +
    "[23:59:59] <erin> late word for bob\n",
  // The same query under the nick's other spelling (listed first), a day later: one
  // conversation, in order.
  "bob/local/Erin/2025-03-03.log": "[12:00:00] <Erin> later word\n",
};

function rows(home: string, sql: string): Record<string, unknown>[] {
  const db = new DatabaseSync(`${home}/parley.db`, { readOnly: true });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

async function writeLogs(root: string): Promise<void> {
  for (const [path, text] of Object.entries(LOGS)) {
    const full = `${root}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(full, text);
  }
}

/** Runs the import of `db` (a file or URL) twice and checks what came in. */
async function importAndCheck(t: Deno.TestContext, db: string, work: string): Promise<void> {
  const home = `${work}/home`;
  let first = "";
  await Deno.mkdir(home, { recursive: true });
  const logs = `${work}/logs`;
  await writeLogs(logs);
  // A link out of the logs folder: someone else's history, as far as the import can tell.
  await Deno.mkdir(`${work}/outside/#stolen`, { recursive: true });
  await Deno.writeTextFile(`${work}/outside/#stolen/2025-03-01.log`, "[10:00:00] <zed> stolen\n");
  await Deno.symlink(`${work}/outside/#stolen`, `${logs}/bob/local/#stolen`);
  const args = [
    "import",
    "soju",
    db,
    "--logs",
    logs,
    "--domain",
    "example.org",
    "--timezone",
    "America/New_York",
  ];
  await t.step("users, networks, channels and both message stores come in", async () => {
    const r = await parley(args, { env: { PARLEY_HOME: home } });
    assertEquals(r.code, 0, r.stderr);
    first = r.stdout;
    assertStringIncludes(r.stdout, "imported: 2 users, 3 connections");
    assertStringIncludes(r.stdout, "12 messages, 17 channel events");
    // A CTCP VERSION, a user mode, a kick of no one, a join in a private conversation (db); a
    // line that is no event, a malformed join, a join in a private conversation (fs).
    assertStringIncludes(r.stdout, "(7 skipped");
    assertStringIncludes(r.stderr, `skipped the network "sock": a Unix socket`);
    assertStringIncludes(r.stderr, "#stolen: it is a link out of");
    assert(!(r.stdout + r.stderr).includes("pa ss"), "no password printed");
    const admins = rows(home, "SELECT email FROM users WHERE roles LIKE '%admin%'");
    assertEquals(admins.map((u) => u.email), ["alice@example.org"]);
    const conns = rows(
      home,
      "SELECT c.name, c.url, c.wanted_state, c.on_connect_commands FROM connections c " +
        "JOIN users u ON u.id = c.user_id ORDER BY u.email, c.id",
    );
    assertEquals(conns.map((c) => c.name), ["libera", "irc.example.org", "local"]);
    const url = (i: number) => new URL(String(conns[i].url));
    assertEquals(url(0).host, "irc.libera.chat:6697");
    assertEquals(url(0).protocol, "ircs:");
    assertEquals(decodeURIComponent(url(0).username), "alice-acct");
    assertEquals(decodeURIComponent(url(0).password), "pa ss");
    assertEquals(url(0).searchParams.get("sasl"), "plain");
    assertEquals(url(0).searchParams.get("nick"), "alice");
    assertEquals(url(0).searchParams.get("realname"), "Alice");
    assertEquals(JSON.parse(String(conns[0].on_connect_commands)), [
      "/quote PRIVMSG NickServ :IDENTIFY hunter2",
      "/quote MODE alice +i",
    ]);
    // The keyed channel keeps its key, to be joined with at each connect.
    assertEquals(
      rows(home, "SELECT name, channel_key FROM conversations WHERE channel_key != ''")
        .map((c) => ({ ...c })),
      [{ name: "#Secret", channel_key: "k3y" }],
    );
    // A bare address is soju's TLS default; a disabled network is not connected.
    assertEquals(url(1).protocol, "ircs:");
    assertEquals(decodeURIComponent(url(1).password), "srvpass");
    assertEquals(conns[1].wanted_state, "disconnected");
    assertEquals(url(2).protocol, "irc:");
    assertEquals(url(2).searchParams.get("nick"), "bob", "no nick: the user name");
    assertEquals(url(2).searchParams.get("realname"), "Bob B");

    const msgs = rows(
      home,
      "SELECT u.email, v.name AS conv, m.ts, m.type, m.sender, m.text, m.highlight FROM messages m " +
        "JOIN conversations v ON v.id = m.conversation JOIN users u ON u.id = m.user_id " +
        "WHERE m.type < 4 ORDER BY u.email, v.name, m.ts",
    ).map((m) =>
      `${m.email} ${m.conv} ${
        new Date(Number(m.ts) / 1000).toISOString()
      } ${m.type} <${m.sender}> ${m.text} ${m.highlight}`
    );
    assertEquals(msgs, [
      "alice@example.org #soju 2025-03-01T10:00:00.123Z 0 <dave> hello alice 1",
      "alice@example.org #soju 2025-03-01T10:00:02.000Z 2 <alice> waves 0",
      "alice@example.org #soju 2025-03-01T10:00:03.000Z 1 <ChanServ> welcome to #soju 0",
      "alice@example.org dave 2025-03-01T11:00:00.000Z 0 <dave> psst, a soju secret 1",
      // New York in March is UTC-5; the repeated hour of November is read in order.
      "bob@example.org #parley 2025-03-01T15:00:00.000Z 0 <dave> morning bob 1",
      "bob@example.org #parley 2025-03-01T15:00:05.000Z 2 <erin> waves 0",
      "bob@example.org #parley 2025-03-01T15:00:06.000Z 1 <ChanServ> the notice 0",
      "bob@example.org #parley 2025-03-01T15:00:06.000Z 0 <bob> hi all 0",
      "bob@example.org #parley 2025-11-02T05:30:00.000Z 0 <dave> first pass 0",
      "bob@example.org #parley 2025-11-02T06:10:00.000Z 0 <dave> second pass 0",
      "bob@example.org Erin 2025-03-03T04:59:59.000Z 0 <erin> late word for bob 1",
      "bob@example.org Erin 2025-03-03T17:00:00.000Z 0 <Erin> later word 1",
    ]);
    // A quit is kept in a private conversation too, as Parley keeps one live; a join is not.
    const privateEvents = rows(
      home,
      "SELECT m.type, m.sender, m.text, m.fields, m.highlight FROM messages m " +
        "JOIN conversations v ON v.id = m.conversation WHERE v.name = 'dave' AND m.type >= 4",
    );
    assertEquals(privateEvents.map((e) => [e.type, e.sender, e.text, e.fields, e.highlight]), [
      [6, "dave", "", "{}", 0],
    ]);
    const convs = rows(home, "SELECT name, joined FROM conversations ORDER BY name")
      .map((c) => `${c.name} ${c.joined}`);
    assertEquals(convs, ["#Secret 1", "#parley 1", "#soju 1", "Erin 0", "dave 0"]);
  });
  await t.step("a second run with --merge adds nothing twice", async () => {
    const r = await parley([...args, "--merge"], { env: { PARLEY_HOME: home } });
    assertEquals(r.code, 0, r.stderr);
    assertStringIncludes(
      r.stdout,
      "imported: 0 users, 0 connections, 0 conversations, 0 messages, 0 channel events " +
        "(12 messages and 17 channel events were already there)",
    );
  });
  await t.step("the history API reads the events of both stores as live ones", async () => {
    const server = await startServer({ home });
    try {
      /** The channel events of a conversation, as the history API gives them. */
      const events = async (email: string, conversation: string) => {
        const line = first.split("\n").find((l) => l.startsWith(`invite for ${email}: `))!;
        const link = new URL(line.slice(line.indexOf(": ") + 2));
        const api = new ApiClient(server.url);
        await api.register(email, "correct horse battery", {
          exp: link.searchParams.get("exp")!,
          token: link.searchParams.get("token")!,
        });
        const conns = (await api.get("/api/connections")).body.connections as {
          connection_id: string;
          name: string;
        }[];
        const found: unknown[] = [];
        for (const c of conns) {
          const page = await api.get(
            `/api/connection/${c.connection_id}/conversation/${
              encodeURIComponent(conversation)
            }/messages`,
          );
          for (const m of page.body.messages ?? []) {
            if (m.fields) found.push([m.ts, m.type, m.from, m.fields, m.message]);
          }
        }
        return found;
      };
      // The db store: each line's own time.
      assertEquals(await events("alice@example.org", "#soju"), [
        ["2025-03-01T10:00:01.000000Z", "join", "dave", { nick: "dave" }, "dave joined."],
        [
          "2025-03-01T10:00:05.000000Z",
          "topic",
          "alice",
          { nick: "alice", topic: "soju's 'topic' (new)" },
          "alice changed the topic to: soju's 'topic' (new)",
        ],
        [
          "2025-03-01T10:00:06.000000Z",
          "mode",
          "alice",
          { nick: "alice", mode: "+o dave" },
          "alice set mode +o dave.",
        ],
        [
          "2025-03-01T10:00:08.000000Z",
          "nick_change",
          "dave",
          { old_nick: "dave", new_nick: "dave_" },
          "dave is now known as dave_.",
        ],
        [
          "2025-03-01T10:00:09.000000Z",
          "part",
          "dave_",
          { nick: "dave_", message: "brb (soon)" },
          "dave_ left: brb (soon)",
        ],
        ["2025-03-01T10:00:10.000000Z", "join", "dave_", { nick: "dave_" }, "dave_ joined."],
        [
          "2025-03-01T10:00:11.000000Z",
          "kick",
          "alice",
          { nick: "dave_", kicker: "alice", message: "enough" },
          "dave_ was kicked by alice: enough",
        ],
        [
          "2025-03-01T10:00:12.000000Z",
          "quit",
          "erin",
          { nick: "erin", message: "Quit: bye" },
          "erin quit: Quit: bye",
        ],
      ]);
      // The fs store: local times of New York (UTC-5 in March).
      assertEquals(await events("bob@example.org", "#parley"), [
        ["2025-03-01T15:00:00.000001Z", "join", "erin", { nick: "erin" }, "erin joined."],
        [
          "2025-03-01T15:00:07.000000Z",
          "nick_change",
          "erin",
          { old_nick: "erin", new_nick: "erin_" },
          "erin is now known as erin_.",
        ],
        [
          "2025-03-01T15:00:08.000000Z",
          "topic",
          "erin_",
          { nick: "erin_", topic: "it's 'fine'" },
          "erin_ changed the topic to: it's 'fine'",
        ],
        [
          "2025-03-01T15:00:09.000000Z",
          "mode",
          "bob",
          { nick: "bob", mode: "+v erin_" },
          "bob set mode +v erin_.",
        ],
        ["2025-03-01T15:00:10.000000Z", "part", "erin_", { nick: "erin_" }, "erin_ left."],
        ["2025-03-01T15:00:11.000000Z", "join", "erin_", { nick: "erin_" }, "erin_ joined."],
        [
          "2025-03-01T15:00:12.000000Z",
          "kick",
          "bob",
          { nick: "erin_", kicker: "bob", message: "bye (now)" },
          "erin_ was kicked by bob: bye (now)",
        ],
        [
          "2025-03-01T15:00:13.000000Z",
          "quit",
          "dave",
          { nick: "dave", message: "Ping timeout: 120 seconds" },
          "dave quit: Ping timeout: 120 seconds",
        ],
      ]);
    } finally {
      await server.stop();
    }
  });
}

Deno.test("import soju: a SQLite database and its fs logs", async (t) => {
  const work = await Deno.makeTempDir({ prefix: "parley-soju-" });
  try {
    const db = new DatabaseSync(`${work}/soju.db`);
    for (const sql of TABLES(false)) db.exec(sql);
    for (const [table, row] of ROWS) {
      const cols = Object.keys(row);
      db.prepare(
        `INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(", ")}) VALUES (${
          cols.map(() => "?").join(", ")
        })`,
      )
        .run(
          ...cols.map((c) =>
            typeof row[c] === "boolean" ? +row[c] : row[c]
          ) as (string | number | null)[],
        );
    }
    db.close();
    await importAndCheck(t, `${work}/soju.db`, work);
    await t.step(
      "an event at another's time, by the same person, is not taken for it",
      async () => {
        // soju's row now holds another mode, set at the same second by the same person.
        const changed = new DatabaseSync(`${work}/soju.db`);
        changed.prepare("UPDATE Message SET raw = ? WHERE id = 8").run(
          ":alice!a@h MODE #soju +v dave",
        );
        changed.close();
        const r = await parley([
          "import",
          "soju",
          `${work}/soju.db`,
          "--logs",
          `${work}/logs`,
          "--domain",
          "example.org",
          "--timezone",
          "America/New_York",
          "--merge",
        ], { env: { PARLEY_HOME: `${work}/home` } });
        assertEquals(r.code, 0, r.stderr);
        assertStringIncludes(
          r.stdout,
          "0 messages, 1 channel events (12 messages and 16 channel events were already there)",
        );
        const modes = rows(
          `${work}/home`,
          "SELECT ts, fields FROM messages WHERE type = 10 AND sender = 'alice' ORDER BY ts",
        );
        assertEquals(modes.map((m) => [Number(m.ts) - Number(modes[0].ts), m.fields]), [
          [0, '{"mode":"+o dave"}'],
          [1, '{"mode":"+v dave"}'],
        ]);
      },
    );
    await t.step("a file that is not a soju database is named, not quoted", async () => {
      await Deno.writeTextFile(`${work}/not.db`, "TOPSECRET, not SQLite");
      const r = await parley(["import", "soju", `${work}/not.db`, "--domain", "example.org"], {
        env: { PARLEY_HOME: `${work}/home` },
      });
      assertEquals(r.code, 2);
      assertStringIncludes(r.stderr, `cannot import ${work}/not.db`);
      assert(!r.stderr.includes("TOPSECRET"), r.stderr);
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test("import soju: a PostgreSQL database by URL", async (t) => {
  const pg = await startPostgres();
  const work = await Deno.makeTempDir({ prefix: "parley-soju-pg-" });
  try {
    const url = await pg.database();
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      for (const text of TABLES(true)) await sql.unsafe(text);
      for (const [table, row] of ROWS) {
        const cols = Object.keys(row);
        await sql.unsafe(
          `INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(", ")}) VALUES (${
            cols.map((_, i) => `$${i + 1}`).join(", ")
          })`,
          cols.map((c) => row[c]) as never[],
        );
      }
    } finally {
      await sql.end();
    }
    await importAndCheck(t, url, work);
  } finally {
    await pg.close();
    await Deno.remove(work, { recursive: true });
  }
});
