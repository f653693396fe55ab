// deno-lint-ignore-file no-explicit-any -- API answers are read field by field
/**
 * PostgreSQL failing under a running daemon: stopped, or out of disk for a table. Each request
 * meanwhile is answered 503 with what happened (not 500 with a request id), nothing of a refused
 * write is kept, and the same request succeeds once the database is back or has room. IRC lines
 * that arrive meanwhile wait for it and are all stored, in order.
 *
 * @test-alone: while the database is away the node keeps running its users for 5 s only (by
 * design); on a machine busy with the parallel pass, a stop and start slower than that would
 * close the IRC connection under the test.
 */
import { assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { EventSocket } from "../support/events.ts";
import { inChannel } from "../support/in_channel.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { type IrcServer, startIrcServer } from "../support/ngircd.ts";
import { freePort } from "../support/ports.ts";
import { poll } from "../support/poll.ts";
import { type PgServer, startPostgres } from "../support/postgres.ts";
import { startServer, type TestServer } from "../support/server.ts";
import { canMount, withSmallDisk } from "../support/small_disk.ts";
import postgres from "postgres";

const AWAY = "The database is not answering. Try again in a moment.";
const FULL = "The server's disk is full: nothing was saved. Try again later.";

/** What a request was answered: its status and first error's message. */
async function answer(res: Promise<{ status: number; body: any }>) {
  const { status, body } = await res;
  return [status, body?.errors?.[0]?.message];
}

/** The texts of a conversation's stored messages. */
async function said(api: ApiClient, cid: string, conversation: string): Promise<string[]> {
  const path = `/api/connection/${cid}/conversation/${encodeURIComponent(conversation)}/messages`;
  return ((await api.get(path)).body.messages ?? []).map((m: any) => m.message);
}

async function withDaemon(fn: (pg: PgServer, server: TestServer, api: ApiClient) => Promise<void>) {
  const pg = await startPostgres();
  let server: TestServer | undefined;
  try {
    server = await startServer({ env: { PARLEY_DATABASE_URL: pg.url } });
    const api = new ApiClient(server.url);
    await api.register("admin@example.com");
    await fn(pg, server, api);
  } finally {
    await server?.close();
    await pg.close();
  }
}

/**
 * PostgreSQL, ngircd and a daemon on them (`env` besides the database) whose user is in #a with
 * bob (tests/support/in_channel.ts); all closed after `fn`.
 */
async function inChannelOnPg(
  env: Record<string, string>,
  fn: (
    pg: PgServer,
    irc: IrcServer,
    server: TestServer,
    joined: Awaited<ReturnType<typeof inChannel>>,
  ) => Promise<void>,
) {
  const pg = await startPostgres();
  const irc = await startIrcServer();
  let server: TestServer | undefined;
  let bob: RawIrcClient | undefined;
  try {
    server = await startServer({ env: { PARLEY_DATABASE_URL: pg.url, ...env } });
    const joined = await inChannel(server.url, irc, "a@example.com", "#a");
    bob = joined.bob;
    // What the join brought written before a test stops the database (reading a conversation
    // waits for the writer): else a test's lines could queue behind a message the writer holds
    // for the database, which waits without a word, and never meet the outage themselves.
    await poll(
      "the join stored",
      async () => (await said(joined.api, joined.cid, "#a")).includes("parley joined."),
    );
    await fn(pg, irc, server, joined);
  } finally {
    await bob?.close();
    await server?.close();
    await irc.close();
    await pg.close();
  }
}

/**
 * Moves `tables` onto a tablespace at `dir` (a small disk) and fills it with a table `filler`, so
 * that a write needing a new page of theirs is refused (53100) until `filler` is dropped.
 * The filler's insert is refused part way, leaving its pages dead: autovacuum, which may come at
 * any time, would cut them off the file's end and give their room back, so it is off for it.
 * The tables are vacuumed on the way (while there is room for their visibility maps): old
 * versions of updated rows are room a page could give back at any read; vacuumed, that room is
 * known to the free space map, and what fills the tables later takes it.
 */
async function fillTablespace(sql: postgres.Sql, dir: string, tables: string[]) {
  await sql.unsafe(`CREATE TABLESPACE small LOCATION '${dir}'`);
  for (const t of tables) {
    await sql.unsafe(`ALTER TABLE ${t} SET TABLESPACE small`);
    await sql.unsafe(`VACUUM ${t}`);
  }
  await sql`CREATE TABLE filler (x text)
    WITH (autovacuum_enabled = false, toast.autovacuum_enabled = false) TABLESPACE small`;
  const full = await sql`INSERT INTO filler
    SELECT repeat(md5(i::text), 64) FROM generate_series(1, 100000) AS i`
    .then(() => "", (err) => err.code as string);
  assertEquals(full, "53100", "the filler filled the disk");
}

const connection = { url: "irc://127.0.0.1:6667?nick=alice", wanted_state: "disconnected" };

Deno.test("PostgreSQL stopped: requests are answered 503 until it is back", async () => {
  await withDaemon(async (pg, server, api) => {
    await pg.stop();
    assertEquals(await answer(api.get("/api/user")), [503, AWAY]);
    assertEquals(await answer(api.post("/api/connections", connection)), [503, AWAY]);
    await pg.start();
    await poll(
      "the daemon answering again",
      async () => (await api.get("/api/user")).status === 200,
    );
    assertEquals((await api.post("/api/connections", connection)).status, 200);
    const { body } = await api.get("/api/connections");
    assertEquals(body.connections.length, 1, "the refused write kept nothing");
    assertEquals(server.output().includes("request refused: the database failed"), true);
  });
});

Deno.test("PostgreSQL stopped: a page's socket is answered the error, and the daemon lives", async () => {
  await withDaemon(async (pg, _server, api) => {
    const socket = await EventSocket.open(api);
    try {
      await socket.waitFor((e) => e.event === "handshake");
      await pg.stop();
      // The keepalive and the page's load each read the session first; that read failing ended
      // the process (an exception out of the socket's message handler).
      for (const method of ["ping", "load"]) {
        const answered = await socket.request({ method });
        assertEquals([answered.event, answered.errors?.[0]?.message], [method, AWAY]);
      }
      await pg.start();
      await poll(
        "the daemon answering again",
        async () => (await api.get("/api/user")).status === 200,
      );
      const loaded = await socket.request({ method: "load" });
      assertEquals([loaded.errors, loaded.user?.email], [undefined, "admin@example.com"]);
    } finally {
      await socket.close();
    }
  });
});

Deno.test("PostgreSQL stopped: IRC lines wait for it, and every one is stored in order", async () => {
  await inChannelOnPg({}, async (pg, irc, server, { api, cid, bob }) => {
    const carol = await RawIrcClient.connect(irc.port, "carol");
    try {
      await pg.stop();
      // A new private conversation, a topic, a join, a nick change and a part: each needs the
      // database (a conversation made or looked up, a cache emptied by the rename); without the
      // wait each fails and is lost.
      await bob.send("PRIVMSG parley :hello in private");
      await carol.join("#a");
      // Each after the server's echo of the one before (bob and carol are two sockets), so the
      // server sends the daemon the lines in this order.
      await bob.send("TOPIC #a :new topic");
      await bob.waitFor((l) => l.command === "TOPIC");
      await carol.send("NICK carol2");
      await carol.waitFor((l) => l.command === "NICK");
      await carol.send("PART #a :bye");
      await carol.waitFor((l) => l.command === "PART");
      await bob.send("PRIVMSG #a :in channel");
      // Handled while the database is away: waiting for it (or, without the wait, failed).
      await poll(
        "a line met the outage",
        () => /waiting for the database|irc event failed/.test(server.output()),
      );
      await pg.start();
      await poll(
        "the channel's last line stored",
        async () => (await said(api, cid, "#a")).includes("in channel"),
        30_000,
      );
      assertEquals(await said(api, cid, "#a"), [
        "parley joined.",
        "carol joined.",
        "bob changed the topic to: new topic",
        "carol is now known as carol2.",
        "carol2 left: bye",
        "in channel",
      ]);
      assertEquals(await said(api, cid, "bob"), ["hello in private"]);
    } finally {
      await carol.close();
    }
  });
});

Deno.test("PostgreSQL stopped as the IRC server goes away: the connection's notice is kept", async () => {
  await inChannelOnPg({}, async (pg, irc, server, { api, cid, bob }) => {
    await bob.close();
    // Written before the outage, as the join (inChannelOnPg).
    await poll(
      "bob's quit stored",
      async () => (await said(api, cid, "#a")).some((m) => m.startsWith("bob quit")),
    );
    await pg.stop();
    await irc.stop();
    // The connection's state changes; its notice (and which conversations freeze) needs the
    // database, and waits for it.
    await poll("the notice waiting", () => /waiting for the database/.test(server.output()));
    await pg.start();
    // Without the wait the step fails ("irc event failed") and the server conversation never
    // says why the connection went.
    await poll("the notice stored", async () => {
      const { body } = await api.get(`/api/connection/${cid}/messages`);
      return (body.messages ?? []).some((m: any) => /^Connection lost\./.test(m.message));
    }, 30_000);
  });
});

Deno.test("PostgreSQL stopped, then the daemon: it ends, and says what it gave up", async () => {
  await inChannelOnPg({}, async (pg, _irc, server, { bob }) => {
    await pg.stop();
    // A line that needs the database (a new private conversation), and one behind it.
    await bob.send("PRIVMSG parley :hello in private");
    await bob.send("PRIVMSG #a :in channel");
    await poll("a line waiting", () => /waiting for the database/.test(server.output()));
    // Each wait for the database ends at the stop, after a grace; before, a first sight under way
    // and the store's close waited for each other, and the stop never ended.
    assertEquals(await server.stop(), 0);
    const out = server.output();
    const tail = out.split("\n").filter((l) => / (WARN|ERROR|INFO) /.test(l)).slice(-20).join("\n");
    assertEquals(/INFO stopped/.test(out), true, `the stop ran to its end:\n${tail}`);
    // bob's two lines and the steps of the connection's own stop (its state notices).
    const left = Number(out.match(/WARN stopped with IRC events not stored events=(\d+)/)?.[1]);
    assertEquals(left >= 2, true, `the loss said:\n${tail}`);
  });
});

Deno.test("PostgreSQL frozen, then the daemon: the stop ends at its bound, saying what it waited for", async () => {
  await inChannelOnPg({}, async (pg, _irc, server, { bob }) => {
    try {
      // Connections open and nothing answering (a host that hangs): no wait ends by itself.
      await pg.freeze(true);
      await bob.send("PRIVMSG parley :hello in private");
      await bob.send("PRIVMSG #a :in channel");
      assertEquals(await server.stop(), 1);
      assertEquals(
        server.output().match(/ERROR stopping took too long.*/)?.[0],
        'ERROR stopping took too long; ending now waiting_for="the IRC connections" after_s=15',
      );
    } finally {
      await pg.freeze(false);
    }
  });
});

Deno.test("PostgreSQL frozen, then the daemon: what the writer held is stored at the next start", async () => {
  await inChannelOnPg({}, async (pg, _irc, server, { api, cid, bob }) => {
    try {
      // A line stored first: what a line of bob's reads (his ignore entry, the channel) is in
      // memory after it, so the next goes to the writer without a query.
      await bob.send("PRIVMSG #a :said before");
      await poll(
        "the first line stored",
        async () => (await said(api, cid, "#a")).includes("said before"),
      );
      const events = await EventSocket.open(api);
      try {
        await pg.freeze(true);
        await bob.send("PRIVMSG #a :said to a frozen database");
        // Told once the writer took it (a commit of its batch waits for the database).
        await events.waitFor((e) =>
          e.event === "message" && e.message === "said to a frozen database"
        );
      } finally {
        await events.close();
      }
      assertEquals(await server.stop(), 1);
      const kept = server.output().match(/WARN messages held for the database kept=(\d+)/);
      assertEquals(
        kept !== null && Number(kept[1]) >= 1,
        true,
        server.output().split("\n").slice(-30).join("\n"),
      );
    } finally {
      await pg.freeze(false);
    }
    await server.restart();
    await poll(
      "the line stored",
      async () => (await said(api, cid, "#a")).includes("said to a frozen database"),
      30_000,
    );
    assertEquals(
      (await said(api, cid, "#a")).filter((m) => m === "said to a frozen database").length,
      1,
    );
  });
});

Deno.test("PostgreSQL frozen, then the daemon twice: the second signal ends it at once", async () => {
  await inChannelOnPg({}, async (pg, _irc, server) => {
    try {
      await pg.freeze(true);
      Deno.kill(server.pid!()!, "SIGTERM");
      await poll("the stop begun", () => /INFO stopping/.test(server.output()));
      // What an operator's second Ctrl-C or a service manager's second signal means.
      assertEquals(await server.stop(), 1);
      assertEquals(/WARN stopping at once signal=SIGTERM/.test(server.output()), true);
    } finally {
      await pg.freeze(false);
    }
  });
});

/** Logs in to the listener at `port` as the user of inChannel; what the listener said until it
 * closed the link or welcomed the client. */
async function attach(port: number): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const login = [
    "PASS :correct horse battery",
    "NICK x",
    "USER a@example.com/irc-localhost 0 * :x",
  ];
  await conn.write(new TextEncoder().encode(login.map((l) => l + "\r\n").join("")));
  let said = "";
  const buf = new Uint8Array(16384);
  try {
    for (let n; !/ 001 |^ERROR/m.test(said) && (n = await conn.read(buf));) {
      said += new TextDecoder().decode(buf.subarray(0, n));
    }
  } finally {
    conn.close();
  }
  return said;
}

Deno.test("PostgreSQL stopped: an IRC client logging in is told, let go, and attaches later", async () => {
  const port = freePort();
  await inChannelOnPg(
    { PARLEY_IRC_LISTEN: `irc://127.0.0.1:${port}` },
    async (pg, _irc, _server, { bob }) => {
      await bob.close();
      await pg.stop();
      // Not a generic "could not be run" and a client left waiting for its registration.
      const refused = await attach(port);
      assertEquals(
        refused.split("\r\n").filter((l) => /^ERROR|^:\S+ 400 /.test(l)),
        [`:parley 400 x USER :${AWAY}`, `ERROR :Closing link: ${AWAY}`],
      );
      await pg.start();
      await poll("attached again", async () => / 001 /.test(await attach(port)), 30_000);
    },
  );
});

Deno.test({
  name: "PostgreSQL out of disk for a table: a write to it is answered 503, and made with room",
  // A small disk of its own for a tablespace.
  ignore: !canMount,
  fn: () =>
    withSmallDisk("4m", async (mnt) => {
      await withDaemon(async (pg, _server, api) => {
        const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
        try {
          // Connections (none yet: new users get no default one here) and their conversations
          // live on the small disk; filling it leaves no room for their first page.
          await fillTablespace(sql, mnt, ["connections", "conversations"]);
          const made = { ...connection, conversation_id: "#full" };
          assertEquals(await answer(api.post("/api/connections", made)), [503, FULL]);

          await sql`DROP TABLE filler`;
          assertEquals((await api.post("/api/connections", made)).status, 200, "with room");
          const { body } = await api.get("/api/connections");
          assertEquals(body.connections.length, 1, "the refused write kept nothing");
        } finally {
          await sql.end();
        }
      });
    }, "postgres:postgres"),
});

Deno.test({
  name: "PostgreSQL out of disk for a new conversation: the IRC line waits for room, in order",
  ignore: !canMount,
  fn: () =>
    withSmallDisk("4m", async (mnt) => {
      await inChannelOnPg({}, async (pg, _irc, server, { api, cid, bob }) => {
        const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
        try {
          // The padding below adds conversations of the connection, as many as the disk's room
          // takes (79 on one machine, over 1,000 on another): past the cap the daemon would drop
          // the new conversation's line instead of waiting for room.
          const raised = await api.post("/api/settings", {
            max_conversations_per_connection: 1_000_000,
          });
          assertEquals(raised.status, 200);
          await fillTablespace(sql, mnt, ["conversations"]);
          // Every page of conversations filled too, with the smallest rows there are (every
          // column but two at its default: a name of ''), so that no page has room left for
          // any new conversation's row (its name is its id at least) and one needs a new page.
          // (Copies of #a's row could leave room for a smaller one.) In rounds, each after a
          // VACUUM, until one adds nothing: a dead row version (a row updated or an insert undone
          // meanwhile) holds room that any read of its page gives back, for the daemon's insert
          // to take.
          let padding = 0;
          for (let round = 0;; round++) {
            if (round > 0) await sql`VACUUM conversations`;
            let added = 0;
            for (;; added++) {
              const padded = await sql`INSERT INTO conversations (connection, conversation_id)
                SELECT connection, ${`~${(padding++).toString(36)}`} FROM conversations
                WHERE conversation_id = '#a'`.then(() => "", (err) => err.code as string);
              if (padded === "53100") break;
              if (padded || padding > 100_000) throw new Error(`padding: ${padded}`);
            }
            if (round > 0 && added === 0) break;
          }

          await bob.send("PRIVMSG parley :a private word");
          await bob.send("PRIVMSG #a :behind it");
          await poll(
            "the private line waiting for room",
            () => /waiting for room on the disk call=conversations\.ensure/.test(server.output()),
          ).catch(async (err) => {
            const log = server.output().split("\n").filter((l) => / (WARN|ERROR) /.test(l));
            throw new Error(
              `${err.message}\nbob's conversation: ${
                JSON.stringify(await said(api, cid, "bob"))
              }\n${log.slice(-15).join("\n")}`,
            );
          });
          await sql`DROP TABLE filler`;
          await poll(
            "the line behind it stored",
            async () => (await said(api, cid, "#a")).includes("behind it"),
            30_000,
          );
          assertEquals(await said(api, cid, "bob"), ["a private word"]);
          assertEquals(await said(api, cid, "#a"), ["parley joined.", "behind it"]);
        } finally {
          await sql.end();
        }
      });
    }, "postgres:postgres"),
});
