/**
 * `parley import znc` on a data folder written by ZNC 1.8 itself (Debian's package): ZNC runs
 * against a real ngircd with the log module loaded as a network module (default format) for
 * one user and as a user module with `-sanitize` for another (and as a `-sanitize`d global
 * module for both), people talk, join, part, are kicked, quit, change nicks, topics and modes,
 * ZNC is stopped, and its folder is imported.
 */
import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { parley } from "../support/cli.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startZnc } from "../support/znc.ts";
import { poll } from "../support/poll.ts";

/** What the data folder's database holds, read directly. */
function rows(home: string, sql: string): Record<string, unknown>[] {
  const db = new DatabaseSync(`${home}/parley.db`, { readOnly: true });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

/** The text of every log file under `dir`, joined (to wait until ZNC wrote some lines). */
async function logs(dir: string): Promise<string> {
  let text = "";
  try {
    for await (const e of Deno.readDir(dir)) {
      const path = `${dir}/${e.name}`;
      text += e.isDirectory
        ? await logs(path)
        : e.name.endsWith(".log")
        ? await Deno.readTextFile(path)
        : "";
    }
  } catch { /* not there yet */ }
  return text;
}

Deno.test("import znc: a folder written by ZNC 1.8, its logs in both formats, once", async (t) => {
  const irc = await startIrcServer();
  const home = await Deno.makeTempDir({ prefix: "parley-znc-home-" });
  // Zones far from UTC and from each other: a time read in the wrong zone is hours off.
  const users = `
<User alice>
\tPass = plain#alice-secret
\tAdmin = true
\tNick = alice
\tAltNick = alice_
\tIdent = alicei
\tRealName = Alice Liddell
\tTimezone = Pacific/Chatham
\t<Network local>
\t\tLoadModule = log
\t\tLoadModule = sasl
\t\tServer = 127.0.0.1 ${irc.port}
\t\t<Chan #parley>
\t\t</Chan>
\t\t<Chan #Keyed>
\t\t\tKey = sesame
\t\t</Chan>
\t\t<Chan #old>
\t\t\tDisabled = true
\t\t</Chan>
\t</Network>
</User>
<User bob>
\tPass = plain#bob-secret
\tNick = bobz
\tTimezone = America/Los_Angeles
\tLoadModule = log -sanitize
\t<Network local>
\t\tServer = localhost +${irc.port} server-pass
\t\tIRCConnectEnabled = false
\t\tTrustAllCerts = true
\t</Network>
\t<Network other>
\t\tServer = 127.0.0.1 ${irc.port}
\t\tNick = bobz
\t\t<Chan #parley>
\t\t</Chan>
\t</Network>
</User>`;
  // Loaded as a global module too (sanitized): the same lines in a second file, which come in
  // once, with the formatting the network module's file kept.
  const znc = await startZnc(users, "LoadModule = log -sanitize");
  const sentAt = Date.now();
  try {
    await t.step("ZNC logs what is said on ngircd", async () => {
      const dave = await RawIrcClient.connect(irc.port, "dave");
      const alice = await RawIrcClient.connect(znc.port, "alice", "alice/local:alice-secret");
      try {
        await dave.join("#parley");
        await dave.waitForMember("#parley", "alice");
        await dave.waitForMember("#parley", "bobz");
        await dave.say("#parley", "\x02bold\x02 hello alice, from dave");
        await dave.send("PRIVMSG #parley :\x01ACTION waves at everyone\x01");
        await dave.send("NOTICE #parley :a notice for the channel");
        await dave.say("alice", "a private word");
        // Said once ZNC relayed the rest, so that the log's order is the order asserted.
        await alice.waitFor((l) => l.params[1] === "a private word");
        await alice.say("#parley", "alice answers through ZNC");
        // Channel events, in a channel alice opens (so she is its operator), each seen by alice
        // before the next, so that the log's order is the order asserted.
        const saw = (nick: string, command: string, param?: string) =>
          alice.waitFor((l) =>
            l.nick === nick && l.command === command &&
            (param === undefined || l.params.includes(param))
          );
        await alice.send("JOIN #events");
        await saw("alice", "JOIN", "#events");
        await dave.join("#events");
        await saw("dave", "JOIN", "#events");
        await alice.send("TOPIC #events :\x02new\x02 topic: it's 'quoted' (really)");
        await saw("alice", "TOPIC");
        await alice.send("MODE #events +v dave");
        await saw("alice", "MODE", "+v");
        await dave.send("NICK dave2");
        await saw("dave", "NICK");
        await dave.send("PART #events :off (for now)");
        await saw("dave2", "PART");
        await dave.join("#events");
        await saw("dave2", "JOIN", "#events");
        await alice.send("KICK #events dave2 :out (you go)");
        await saw("alice", "KICK");
        const erin = await RawIrcClient.connect(irc.port, "erin");
        await erin.join("#events");
        await saw("erin", "JOIN", "#events");
        await erin.send("QUIT :gone (really)");
        await saw("erin", "QUIT");
        await erin.close();
        // The sasl module keeps the account in its registry, as ZNC writes it.
        await alice.say("*sasl", "Set alice-account s3cret/%;pw!");
        await alice.waitFor((l) =>
          l.nick === "*sasl" && /password has been set/i.test(l.params[1] ?? "")
        );
        await poll("ZNC's logs", async () => {
          const a = await logs(`${znc.dir}/users/alice/networks/local/moddata/log`);
          const b = await logs(`${znc.dir}/users/bob/moddata/log`);
          const g = await logs(`${znc.dir}/moddata/log/alice/local`);
          return a.includes("alice answers") && a.includes("a private word") &&
            b.includes("alice answers") && a.includes("*** Quits: erin") &&
            g.includes("*** Quits: erin");
        });
      } finally {
        await alice.close();
        await dave.close();
      }
      await znc.stop();
      const bobLog = await logs(`${znc.dir}/users/bob/moddata/log/other`);
      assertStringIncludes(bobLog, "<dave> bold hello alice", "-sanitize strips the bold");
      const aliceLog = await logs(`${znc.dir}/users/alice/networks/local/moddata/log`);
      assertStringIncludes(aliceLog, "<dave> \x02bold\x02 hello alice");
      const global = await logs(`${znc.dir}/moddata/log/alice/local`);
      assertStringIncludes(global, "<dave> bold hello alice");
    });

    let first = "";
    let events = 0;
    await t.step("users, networks, channels and every message and event come in", async () => {
      const r = await parley(["import", "znc", znc.dir, "--domain", "example.org"], {
        env: { PARLEY_HOME: home },
      });
      assertEquals(r.code, 0, r.stderr);
      assertStringIncludes(r.stdout, "imported: 2 users, 3 connections");
      first = r.stdout;
      const conns = rows(
        home,
        "SELECT c.name, c.url, c.wanted_state, c.on_connect_commands FROM connections c " +
          "JOIN users u ON u.id = c.user_id ORDER BY u.email, c.name",
      );
      const url = (i: number) => new URL(String(conns[i].url));
      assertEquals(conns.map((c) => c.name), ["local", "local", "other"]);
      // alice: the sasl module's account, her ident and real name, a keyed channel by command.
      assertEquals(url(0).protocol, "irc:");
      assertEquals(decodeURIComponent(url(0).username), "alice-account");
      assertEquals(decodeURIComponent(url(0).password), "s3cret/%;pw!");
      assertEquals(url(0).searchParams.get("sasl"), "plain");
      assertEquals(url(0).searchParams.get("nick"), "alice");
      assertEquals(url(0).searchParams.get("username"), "alicei");
      assertEquals(url(0).searchParams.get("realname"), "Alice Liddell");
      assertEquals(JSON.parse(String(conns[0].on_connect_commands)), []);
      // Its keyed channel keeps the key, to be joined with at each connect.
      assertEquals(
        rows(home, "SELECT name, channel_key FROM conversations WHERE channel_key != ''")
          .map((c) => ({ ...c })),
        [{ name: "#Keyed", channel_key: "sesame" }],
      );
      // bob: TLS from "+port", certificates not checked, connecting off, a server password.
      assertEquals(url(1).protocol, "ircs:");
      assertEquals(url(1).hostname, "localhost");
      assertEquals(decodeURIComponent(url(1).password), "server-pass");
      assertEquals(url(1).searchParams.get("tls_verify"), "0");
      assertEquals(conns[1].wanted_state, "disconnected");
      assertEquals(url(2).password, "");
      assertEquals(conns[2].wanted_state, "connected");

      const convs = rows(
        home,
        "SELECT u.email, v.name, v.joined FROM conversations v JOIN connections c ON c.id = v.connection " +
          "JOIN users u ON u.id = c.user_id WHERE c.name = 'local' ORDER BY u.email, v.name",
      ).map((v) => `${v.email} ${v.name} ${v.joined}`);
      assertEquals(convs, [
        "alice@example.org #Keyed 1",
        // A channel joined from an IRC client is no channel of znc.conf: its log makes it.
        "alice@example.org #events 0",
        "alice@example.org #old 0",
        "alice@example.org #parley 1",
        "alice@example.org dave 0",
      ]);
      const msgs = rows(
        home,
        "SELECT u.email, v.name AS conv, m.ts, m.type, m.sender, m.text, m.highlight FROM messages m " +
          "JOIN conversations v ON v.id = m.conversation JOIN users u ON u.id = m.user_id " +
          "WHERE m.type < 4 ORDER BY u.email, v.name, m.ts",
      );
      const line = (m: Record<string, unknown>) =>
        `${m.email} ${m.conv} ${m.type} <${m.sender}> ${m.text} ${m.highlight}`;
      assertEquals(msgs.map(line), [
        "alice@example.org #parley 0 <dave> \x02bold\x02 hello alice, from dave 1",
        "alice@example.org #parley 2 <dave> waves at everyone 0",
        "alice@example.org #parley 1 <dave> a notice for the channel 0",
        "alice@example.org #parley 0 <alice> alice answers through ZNC 0",
        "alice@example.org dave 0 <dave> a private word 1",
        "bob@example.org #parley 0 <dave> bold hello alice, from dave 0",
        "bob@example.org #parley 2 <dave> waves at everyone 0",
        "bob@example.org #parley 1 <dave> a notice for the channel 0",
        "bob@example.org #parley 0 <alice> alice answers through ZNC 0",
      ]);
      // Local times in two zones, both read back to the moment they were said.
      for (const m of msgs) {
        const off = Number(m.ts) / 1000 - sentAt;
        assert(
          off > -2_000 && off < 60_000,
          `${line(m)} at ${new Date(Number(m.ts) / 1000).toISOString()}`,
        );
      }
      // The channel events (the history API's step reads them): kept as Parley keeps its own,
      // as fields, without text, never a highlight. Joins and quits at ZNC's start and stop
      // come in a varying order, so they are counted here for the second run.
      const kept = rows(home, "SELECT type, text, fields, highlight FROM messages WHERE type >= 4");
      events = kept.length;
      assert(events >= 10, `${events} events`);
      for (const e of kept) {
        assertEquals([e.text, e.highlight, typeof e.fields], ["", 0, "string"], JSON.stringify(e));
      }
    });

    await t.step("a second run with --merge adds nothing twice", async () => {
      const r = await parley(["import", "znc", znc.dir, "--domain", "example.org", "--merge"], {
        env: { PARLEY_HOME: home },
      });
      assertEquals(r.code, 0, r.stderr);
      assertStringIncludes(
        r.stdout,
        "imported: 0 users, 0 connections, 0 conversations, 0 messages, 0 channel events",
      );
      assertStringIncludes(
        r.stdout,
        `(9 messages and ${events} channel events were already there)`,
      );
    });

    await t.step("the daemon serves it: searchable, its events read as live ones", async () => {
      const server = await startServer({ home, env: { PARLEY_CONNECT_DELAY: "0" } });
      try {
        const invite = first.split("\n").find((l) =>
          l.startsWith("invite for alice@example.org: ")
        )!;
        const link = new URL(invite.slice(invite.indexOf(": ") + 2));
        const alice = new ApiClient(server.url);
        const me = await alice.register("alice@example.org", "correct horse battery", {
          exp: link.searchParams.get("exp")!,
          token: link.searchParams.get("token")!,
        });
        assertEquals(me.roles, ["admin"], "a ZNC admin stays an admin");
        const found = await alice.get("/api/search?match=answers");
        assertEquals(found.body.messages.map((m: { message: string }) => m.message), [
          "alice answers through ZNC",
        ]);
        // What ZNC logged of #events (in two files: one line each), read as Parley keeps a live
        // event: its type, who did it, its fields as the live event names them.
        const conn = (await alice.get("/api/connections")).body.connections[0].connection_id;
        const page = await alice.get(
          `/api/connection/${conn}/conversation/${encodeURIComponent("#events")}/messages`,
        );
        const got = (page.body.messages as {
          type: string;
          from: string;
          fields?: Record<string, string>;
          highlight?: boolean;
        }[]).map((m) => [m.type, m.from, m.fields, m.highlight === true]);
        assertEquals(got.slice(0, 10), [
          ["join", "alice", { nick: "alice" }, false],
          ["join", "dave", { nick: "dave" }, false],
          [
            "topic",
            "alice",
            // The network module's copy, with its bold (the global one wrote it -sanitize'd).
            { nick: "alice", topic: "\x02new\x02 topic: it's 'quoted' (really)" },
            false,
          ],
          ["mode", "alice", { nick: "alice", mode: "+v dave" }, false],
          ["nick_change", "dave", { old_nick: "dave", new_nick: "dave2" }, false],
          ["part", "dave2", { nick: "dave2", message: "off (for now)" }, false],
          ["join", "dave2", { nick: "dave2" }, false],
          ["kick", "alice", { nick: "dave2", kicker: "alice", message: "out (you go)" }, false],
          ["join", "erin", { nick: "erin" }, false],
          // ngircd quotes a quit's reason.
          ["quit", "erin", { nick: "erin", message: '"gone (really)"' }, false],
        ]);
        // ZNC's own quit when it stopped, if it logged one.
        for (const rest of got.slice(10)) assertEquals([rest[0], rest[1]], ["quit", "alice"]);
      } finally {
        await server.stop();
      }
    });
  } finally {
    await znc.stop();
    await irc.close();
    await Deno.remove(znc.dir, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("import znc: a hostile folder plants nothing and prints no secret", async (t) => {
  const work = await Deno.makeTempDir({ prefix: "parley-znc-hostile-" });
  const home = `${work}/home`;
  const env = { PARLEY_HOME: home };
  const SECRET = "TOPSECRET-never-printed";
  const write = async (path: string, text: string) => {
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, text);
  };
  const conf = (users: string) => `Version = 1.8.2\n${users}\n`;
  const eve = `<User eve>
  Pass = plain#${SECRET}
  Timezone = UTC
  <Network net>
    LoadModule = sasl
    Server = irc.example.org 6667 ${SECRET}
    <Chan #kept>
    </Chan>
  </Network>
</User>
<User ../../outside>
  <Network net>
    Server = irc.example.org 6667
  </Network>
</User>`;
  try {
    await Deno.mkdir(home, { mode: 0o700 });
    await write(`${work}/outside/configs/znc.conf`, conf(eve));
    await write(
      `${work}/outside/networks/net/moddata/log/#x/2025-01-05.log`,
      "[10:00:00] <zed> stolen\n",
    );
    await write(`${work}/outside/#stolen/2025-01-05.log`, "[10:00:00] <zed> stolen too\n");
    await write(`${work}/outside/.registry`, "username mallory\npassword x\n");

    await t.step("a znc.conf linked out of the folder is not read", async () => {
      await Deno.mkdir(`${work}/linked-conf/configs`, { recursive: true });
      await Deno.symlink(
        `${work}/outside/configs/znc.conf`,
        `${work}/linked-conf/configs/znc.conf`,
      );
      const r = await parley(["import", "znc", `${work}/linked-conf`, "--domain", "example.org"], {
        env,
      });
      assertEquals(r.code, 2);
      assertStringIncludes(r.stderr, "is not a ZNC data folder");
      assert(!(r.stdout + r.stderr).includes("TOPSECRET"), r.stderr);
    });

    const src = `${work}/src`;
    await write(`${src}/configs/znc.conf`, conf(eve));
    const logs = `${src}/users/eve/networks/net/moddata/log`;
    await write(`${logs}/#kept/2025-01-05.log`, "[10:00:00] <zed> kept line\n");
    await Deno.symlink(`${work}/outside/#stolen`, `${logs}/#stolen`);
    await Deno.mkdir(`${src}/users/eve/networks/net/moddata/sasl`, { recursive: true });
    await Deno.symlink(
      `${work}/outside/.registry`,
      `${src}/users/eve/networks/net/moddata/sasl/.registry`,
    );

    await t.step(
      "links out are skipped, a user named to leave the folder reads nothing",
      async () => {
        const r = await parley([
          "import",
          "znc",
          src,
          "--domain",
          "example.org",
          "--email",
          "../../outside=out@example.org",
        ], { env });
        assertEquals(r.code, 0, r.stderr);
        assertStringIncludes(r.stderr, "#stolen: it is a link out of");
        assertStringIncludes(
          r.stderr,
          `skipped ${work}/outside/networks/net/moddata/log: it is a link out of`,
        );
        assertStringIncludes(r.stderr, "sasl/.registry: it is a link out of");
        assert(!(r.stdout + r.stderr).includes("TOPSECRET"), r.stdout + r.stderr);
        const texts = rows(home, "SELECT text FROM messages ORDER BY id").map((m) => m.text);
        assertEquals(texts, ["kept line"]);
        const urls = rows(home, "SELECT url FROM connections").map((c) => String(c.url));
        assert(!urls.some((u) => u.includes("mallory")), urls.join(" "));
      },
    );

    await t.step("a broken znc.conf is named with a line number, never quoted", async () => {
      const bad = `${work}/bad`;
      await write(`${bad}/configs/znc.conf`, `Version = 1.8.2\n<User zoe>\n  ${SECRET}\n</User>\n`);
      const r = await parley(["import", "znc", bad, "--domain", "example.org"], { env });
      assertEquals(r.code, 2);
      assertStringIncludes(r.stderr, `cannot import ${bad}/configs/znc.conf: line 3`);
      assert(!(r.stdout + r.stderr).includes("TOPSECRET"), r.stderr);
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
