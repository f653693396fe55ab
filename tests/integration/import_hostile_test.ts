/**
 * `parley import` on a folder that works against the admin running it: links out of the folder,
 * a user file that is someone's secret, a user who already has an account here, channel events
 * crafted to be malformed or without bounds.
 */
import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { parley } from "../support/cli.ts";

const SECRET = "TOPSECRET-never-printed";

/** Writes `files` (path -> text) under `root`, making folders on the way. */
async function tree(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    const full = `${root}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(full, text);
  }
}

const user = (email: string) => JSON.stringify({ email, roles: [] });
const connection = (id: string, commands: string[] = []) =>
  JSON.stringify({
    connection_id: id,
    name: id,
    url: "irc://irc.example.org:6667?nick=x",
    on_connect_commands: commands,
    conversations: [],
    wanted_state: "disconnected",
  });

/** What the data folder's database holds, read directly. */
function rows(home: string, sql: string): Record<string, unknown>[] {
  const db = new DatabaseSync(`${home}/parley.db`, { readOnly: true });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

Deno.test("import convos: a hostile folder plants nothing and prints no secret", async (t) => {
  const work = await Deno.makeTempDir({ prefix: "parley-import-hostile-" });
  const home = `${work}/home`;
  const env = { PARLEY_HOME: home };
  try {
    await Deno.mkdir(home, { mode: 0o700 });
    // Outside the imported folder: what the links point at.
    await tree(`${work}/outside`, {
      "secret.json": `{"email": "${SECRET}@example.org"}`,
      "secret.txt": `${SECRET}\n`,
      "stolen.log": "2025-01-05T10:00:00 0 <zed> stolen line\n",
      "conn/connection.json": connection("irc-outside"),
      "conn/2025/01/#x.log": "2025-01-05T10:00:00 0 <zed> stolen folder line\n",
    });

    await t.step("an account made by a first import", async () => {
      await tree(`${work}/first`, { "admin@example.org/user.json": user("admin@example.org") });
      const r = await parley(["import", "convos", `${work}/first`], { env });
      assertEquals(r.code, 0, r.stderr);
    });

    const src = `${work}/src`;
    await tree(src, {
      "admin@example.org/user.json": user("admin@example.org"),
      "admin@example.org/irc-planted/connection.json": connection("irc-planted", ["/msg x hi"]),
    });

    await t.step("a user who has an account stops the import, nothing written", async () => {
      const r = await parley(["import", "convos", src], { env });
      assertEquals(r.code, 2, r.stdout);
      assertStringIncludes(r.stderr, "admin@example.org already has an account");
      assertStringIncludes(r.stderr, "--merge");
      assertEquals(rows(home, "SELECT id FROM connections"), []);
    });
    await t.step("with --merge the import is added to the account", async () => {
      const r = await parley(["import", "convos", src, "--merge"], { env });
      assertEquals(r.code, 0, r.stderr);
      const conns = rows(home, "SELECT connection_id FROM connections");
      assertEquals(conns.map((c) => c.connection_id), ["irc-planted"]);
    });

    const linked = `${work}/linked`;
    await tree(linked, {
      "eve@example.org/user.json": user("eve@example.org"),
      "eve@example.org/irc-eve/connection.json": connection("irc-eve"),
      "eve@example.org/irc-eve/2025/01/#kept.log": "2025-01-05T10:00:00 0 <zed> kept line\n",
    });
    await Deno.mkdir(`${linked}/mallory@example.org`);
    await Deno.symlink(`${work}/outside/secret.json`, `${linked}/mallory@example.org/user.json`);
    await Deno.symlink(
      `${work}/outside/stolen.log`,
      `${linked}/eve@example.org/irc-eve/2025/01/#y.log`,
    );
    await Deno.symlink(`${work}/outside/conn`, `${linked}/eve@example.org/irc-linked`);
    // A link that stays inside the folder is followed.
    await Deno.symlink(
      `${linked}/eve@example.org/irc-eve/2025/01/#kept.log`,
      `${linked}/eve@example.org/irc-eve/2025/01/#inside.log`,
    );

    await t.step("links out of the folder are skipped, and no secret is printed", async () => {
      const r = await parley(["import", "convos", linked], { env });
      assertEquals(r.code, 0, r.stderr);
      assertStringIncludes(r.stderr, "mallory@example.org/user.json: it is a link out of");
      assert(!(r.stdout + r.stderr).includes("TOPSECRET"), r.stdout + r.stderr);
      const emails = rows(home, "SELECT email FROM users ORDER BY email").map((u) => u.email);
      assertEquals(emails, ["admin@example.org", "eve@example.org"]);
      const conns = rows(home, "SELECT connection_id FROM connections ORDER BY connection_id");
      assertEquals(conns.map((c) => c.connection_id), ["irc-eve", "irc-planted"]);
      const texts = rows(
        home,
        "SELECT m.text, c.name FROM messages m JOIN conversations c ON c.id = m.conversation " +
          "ORDER BY c.name",
      ).map((m) => `${m.name}: ${m.text}`);
      assertEquals(texts, ["#inside: kept line", "#kept: kept line"]);
    });

    await t.step("a user file that is not JSON is named, never quoted", async () => {
      const bad = `${work}/bad`;
      await tree(bad, { "zoe@example.org/user.json": `${SECRET} is not JSON` });
      const r = await parley(["import", "convos", bad], { env });
      assertEquals(r.code, 2);
      assertStringIncludes(r.stderr, `cannot import ${bad}/zoe@example.org/user.json`);
      assert(!(r.stdout + r.stderr).includes("TOPSECRET"), r.stderr);
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test("import thelounge: a log linked out of the folder is skipped", async () => {
  const work = await Deno.makeTempDir({ prefix: "parley-lounge-hostile-" });
  const fixture = new URL("../fixtures/thelounge", import.meta.url).pathname;
  const home = `${work}/home`;
  try {
    await Deno.mkdir(home, { mode: 0o700 });
    await Deno.mkdir(`${work}/src/users`, { recursive: true });
    await Deno.mkdir(`${work}/src/logs`);
    await Deno.mkdir(`${work}/outside`);
    await Deno.copyFile(`${fixture}/users/bob.json`, `${work}/src/users/bob.json`);
    // bob's log is elsewhere: some other user's history, as far as the import can tell.
    await Deno.copyFile(`${fixture}/logs/bob.sqlite3`, `${work}/outside/bob.sqlite3`);
    await Deno.symlink(`${work}/outside/bob.sqlite3`, `${work}/src/logs/bob.sqlite3`);
    const r = await parley(["import", "thelounge", `${work}/src`, "--domain", "example.org"], {
      env: { PARLEY_HOME: home },
    });
    assertEquals(r.code, 0, r.stderr);
    assertStringIncludes(r.stderr, "logs/bob.sqlite3: it is a link out of");
    assertStringIncludes(r.stdout, "imported: 1 users");
    assertEquals(rows(home, "SELECT id FROM messages"), []);
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

/** The longest nick an event keeps (as any sender), and the longest reason, topic or mode. */
const MAX_NICK = 100;
const MAX_FIELD = 1000;

/** Every imported channel event's sender and fields, and the longest of each. */
function eventBounds(home: string) {
  const events = rows(home, "SELECT sender, text, fields FROM messages WHERE type >= 4");
  let sender = 0;
  let field = 0;
  for (const e of events) {
    assertEquals(e.text, "", "an event keeps no text");
    sender = Math.max(sender, String(e.sender).length);
    for (const v of Object.values(JSON.parse(String(e.fields)))) {
      field = Math.max(field, String(v).length);
    }
  }
  return { count: events.length, sender, field };
}

Deno.test("import thelounge: crafted event rows are bounded or skipped, never thrown", async () => {
  const work = await Deno.makeTempDir({ prefix: "parley-lounge-events-hostile-" });
  const fixture = new URL("../fixtures/thelounge", import.meta.url).pathname;
  const home = `${work}/home`;
  try {
    await Deno.mkdir(home, { mode: 0o700 });
    await Deno.mkdir(`${work}/src/users`, { recursive: true });
    await Deno.mkdir(`${work}/src/logs`);
    await Deno.copyFile(`${fixture}/users/alice.json`, `${work}/src/users/alice.json`);
    // An empty log of The Lounge's shape, with crafted rows only.
    const log = new DatabaseSync(`${work}/src/logs/alice.sqlite3`);
    log.exec(
      "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, network TEXT, channel TEXT, " +
        "time INTEGER, type TEXT, msg TEXT)",
    );
    const net = "87c07c96-4fe2-4bdd-badb-d68885cf362f";
    let time = Date.UTC(2025, 0, 1);
    const add = (type: string, msg: string, channel = "#parley") =>
      log.prepare("INSERT INTO messages (network, channel, time, type, msg) VALUES (?, ?, ?, ?, ?)")
        .run(net, channel, time += 1000, type, msg);
    const from = (nick: unknown) => ({ mode: "", nick });
    const long = "x".repeat(100_000);
    // Kept, cut to the bounds.
    add("quit", JSON.stringify({ from: from("q".repeat(5000)), text: long }));
    add("kick", JSON.stringify({ from: from("k".repeat(500)), target: from(long), text: long }));
    add("topic", JSON.stringify({ from: from("dave"), text: long }));
    add("mode", JSON.stringify({ from: from("dave"), text: `+${"o".repeat(5000)} ${long}` }));
    // A message too, cut as every stored line is.
    add("message", JSON.stringify({ from: from("m".repeat(500)), text: long }));
    // Skipped: not JSON, not an object, no nick, a nick of another type or with a space, a kick
    // of no one, a nick change to nothing, a mode without modes, a join in a private
    // conversation, a mode in the network's own (a user mode).
    add("join", "{not json");
    add("join", "null");
    add("message", "null");
    add("part", "[]");
    add("join", JSON.stringify({}));
    add("join", JSON.stringify({ from: "dave" }));
    add("part", JSON.stringify({ from: from(["dave"]), text: "bye" }));
    add("quit", JSON.stringify({ from: from("two words"), text: "bye" }));
    add("part", JSON.stringify({ from: from("dave"), text: { not: "text" } }));
    add("kick", JSON.stringify({ from: from("op"), target: null, text: "out" }));
    add("nick", JSON.stringify({ from: from("dave"), new_nick: "" }));
    add("mode", JSON.stringify({ from: from("dave"), text: "  " }));
    add("join", JSON.stringify({ from: from("carol") }), "carol");
    add("mode", JSON.stringify({ from: from("alice"), text: "+i" }), "test net");
    log.close();
    const r = await parley(["import", "thelounge", `${work}/src`, "--domain", "example.org"], {
      env: { PARLEY_HOME: home },
    });
    assertEquals(r.code, 0, r.stderr);
    assertStringIncludes(r.stdout, "1 messages, 4 channel events");
    assertStringIncludes(r.stdout, "(14 skipped");
    assertEquals(eventBounds(home), { count: 4, sender: MAX_NICK, field: MAX_FIELD });
    const kick = rows(home, "SELECT fields FROM messages WHERE type = 7")[0];
    assertEquals(JSON.parse(String(kick.fields)).nick.length, MAX_NICK, "a kicked nick too");
    assertEquals(
      rows(home, "SELECT length(sender) AS s, length(text) AS t FROM messages WHERE type = 0")
        .map((r) => ({ ...r })),
      [{ s: 100, t: 10_000 }],
    );
    // The cut message is the same one at a second run.
    const again = await parley([
      "import",
      "thelounge",
      `${work}/src`,
      "--domain",
      "example.org",
      "--merge",
    ], {
      env: { PARLEY_HOME: home },
    });
    assertEquals(again.code, 0, again.stderr);
    assertStringIncludes(again.stdout, "0 messages, 0 channel events");
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test("import znc: crafted event lines are bounded or skipped, never thrown", async () => {
  const work = await Deno.makeTempDir({ prefix: "parley-znc-events-hostile-" });
  const home = `${work}/home`;
  try {
    await Deno.mkdir(home, { mode: 0o700 });
    const long = "r".repeat(50_000);
    await tree(`${work}/src`, {
      "configs/znc.conf": `Version = 1.8.2
<User eve>
  Timezone = UTC
  <Network net>
    LoadModule = log
    Server = irc.example.org 6667
  </Network>
</User>
`,
      "users/eve/networks/net/moddata/log/#chan/2025-01-05.log": [
        // Kept, cut to the bounds.
        `[10:00:00] *** Quits: ${"q".repeat(3000)} (i@h) (${long})`,
        `[10:00:01] *** ${"n".repeat(3000)} was kicked by ${"k".repeat(3000)} (${long})`,
        `[10:00:02] *** dave changes topic to '${long}'`,
        `[10:00:03] *** ${"o".repeat(3000)} is now known as ${"p".repeat(3000)}`,
        // Longer than a line may be: skipped.
        `[10:00:04] *** Joins: ${"j".repeat(70_000)} (i@h)`,
        // Malformed or no event: skipped.
        "[10:00:05] *** Joins: (i@h)",
        "[10:00:06] *** Parts: dave",
        "[10:00:07] *** dave was kicked by",
        "[10:00:08] *** dave sets mode:   ",
        "[10:00:09] *** dave is now known as \x01",
        "[10:00:10] *** \x00\x00\x00",
        "",
      ].join("\n"),
      // A join in a private window: skipped; a nick change there is kept.
      "users/eve/networks/net/moddata/log/dave/2025-01-05.log":
        "[10:00:00] *** Joins: dave (i@h)\n[10:00:01] *** dave is now known as dave_\n",
    });
    const r = await parley(["import", "znc", `${work}/src`, "--domain", "example.org"], {
      env: { PARLEY_HOME: home },
    });
    assertEquals(r.code, 0, r.stderr);
    assertStringIncludes(r.stdout, "0 messages, 5 channel events");
    assertStringIncludes(r.stdout, "(8 skipped");
    assertEquals(eventBounds(home), { count: 5, sender: MAX_NICK, field: MAX_FIELD });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test("import: a program Parley does not import from is named, with the ones it does", async () => {
  const r = await parley(["import", "weechat", "/tmp"]);
  assertEquals(r.code, 2, r.stderr);
  assertStringIncludes(r.stderr, '"weechat" is not a program Parley imports from');
  assertStringIncludes(r.stderr, "thelounge, convos, znc, soju");
});
