/**
 * BouncerServ from an attached IRC client: every command, its errors, the admin-only ones refused
 * to others, and a stranger holding the nick BouncerServ on the IRC network hears none of it.
 * A server notice reaches an IRC client and an open /events socket.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient, type Received } from "../support/bouncer_client.ts";
import { EventSocket } from "../support/events.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { poll } from "../support/poll.ts";

const assertMatch = (text: string, re: RegExp) => assert(re.test(text), text);
const fromServ = (l: Received) => l.command === "NOTICE" && l.prefix.startsWith("BouncerServ!");

/** Sends a command; resolves with BouncerServ's answers once one matches `until`. */
async function serv(c: BouncerClient, text: string, until: RegExp): Promise<string[]> {
  const from = c.lines.length;
  await c.send(`PRIVMSG BouncerServ :${text}`);
  await c.waitFor((l) => fromServ(l) && until.test(l.params[1]), from);
  return c.lines.slice(from).filter(fromServ).map((l) => l.params[1]);
}

Deno.test("bouncer: BouncerServ answers from the listener and never reaches the network", async (t) => {
  const s = await setupBouncer();
  const stranger = await RawIrcClient.connect(s.ngircd.port, "BouncerServ");
  const store = s.app.deps.store;
  try {
    const c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@svc`, PASSWORD);
    const admin = (await store.users.byEmail(EMAIL))!;

    await t.step("help lists the commands; help <command> tells how to type it", async () => {
      const all = await serv(c, "help", /^server notice/);
      assert(all.some((l) => l.startsWith("network create -addr")), all.join("\n"));
      assert(all.some((l) => l.startsWith("user delete")), "an admin sees the admin commands");
      const one = await serv(c, "help network create", /^network create/);
      assertEquals(one.length, 1, one.join("\n"));
      const lower = await serv(c, "HELP sasl", /^sasl reset/);
      assert(lower.some((l) => l.startsWith("sasl set-plain")), lower.join("\n"));
    });

    await t.step("an unknown command says what to type", async () => {
      const [line] = await serv(c, "frobnicate", /Unknown command/);
      assertMatch(line, /Type "help"/);
      const [amb] = await serv(c, "c", /could be any of/);
      assertEquals(amb, '"c" could be any of: certfp, channel.');
      const [deeper] = await serv(c, "sasl s", /could be any of/);
      assertEquals(deeper, '"s" could be any of: set-plain, status.');
    });

    await t.step("the lowercase nick works too; a NOTICE to it is dropped", async () => {
      await serv(c, "network status", new RegExp(`^${s.cid} .*connected`));
      await serv(c, "net st", new RegExp(`^${s.cid} `));
      await c.send("NOTICE BouncerServ :network status");
      await serv(c, "network status", new RegExp(`^${s.cid} `));
    });

    await t.step(
      "echo-message and labeled-response: the line is echoed with its label",
      async () => {
        const e = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@echo`, PASSWORD, [
          "echo-message",
          "labeled-response",
          "message-tags",
        ]);
        await e.send("@label=q1 PRIVMSG BouncerServ :network status");
        const echo = await e.waitFor((l) =>
          l.command === "PRIVMSG" && l.params[0] === "BouncerServ"
        );
        assertEquals(echo.tags.get("label"), "q1");
        assertEquals(echo.params[1], "network status");
        // From her source on the network (or her bare nick), as the relay sends her lines: not
        // a source made up on the listener's host.
        assert(!echo.prefix.endsWith("@parley"), echo.prefix);
        await e.waitFor((l) => fromServ(l) && l.params[1].startsWith(`${s.cid} `));
        e.close();
      },
    );

    let second = "";
    await t.step("network create: the same checks as the API", async () => {
      const missing = await serv(c, "network create -name x", /^Usage: network create/);
      assertEquals(missing[0], "-addr is needed.");
      const unknown = await serv(
        c,
        "network create -addr 127.0.0.1 -color red",
        /^Usage: network create/,
      );
      assertEquals(unknown[0], "Unknown flag -color.");
      assertEquals(unknown.length, 2, unknown.join("\n"));
      const badAddr = await serv(c, "network create -addr x@[::zz]:99999", /-addr takes/);
      assertEquals(badAddr.length, 1);
      // The same host, port and nick as the first connection: refused as the API refuses it.
      const dup = await serv(
        c,
        `network create -addr irc://127.0.0.1:${s.ngircd.port} -nick alice`,
        /./,
      );
      const api = await s.api.post("/api/connections", {
        url: `irc://127.0.0.1:${s.ngircd.port}?nick=alice`,
      });
      assertEquals(api.status, 400);
      assertEquals(dup[0], api.body.errors[0].message);
      const made = await serv(
        c,
        `network create -addr irc://127.0.0.1:${s.ngircd.port} -name "Second one" -nick bobby`,
        /^Created network/,
      );
      second = /\((.+)\)\.$/.exec(made[0])![1];
      const list = (await s.api.get("/api/connections")).body.connections;
      const row = list.find((x: { connection_id: string }) => x.connection_id === second);
      assertEquals(row.name, "Second one");
      assertMatch(row.url, /nick=bobby/);
    });

    await t.step("network update changes what it names, by id or name", async () => {
      await serv(c, `network update "second one" -nick carol`, /^Updated network/);
      const rec = await store.connections.get(admin.id, second);
      assertMatch(rec!.url, /nick=carol/);
      const none = await serv(c, "network update nosuch -nick x", /No network/);
      assertMatch(none[0], /network status/);
      const nothing = await serv(c, `network update ${second}`, /Usage/);
      assertEquals(nothing[0], "Say what to change.");
    });

    await t.step("sasl set-plain, status and reset", async () => {
      const off = await serv(c, `sasl status -network ${second}`, /SASL/);
      assertEquals(off[0], `${second}: SASL is off.`);
      // ngircd has no SASL: the login is saved, and the failed connect said.
      const set = await serv(c, `sasl set-plain -network ${second} bobacct "s3cret pass"`, /SASL/);
      assertMatch(set[0], /^Saved, but connecting failed: SASL/);
      const rec = await store.connections.get(admin.id, second);
      const url = new URL(rec!.url);
      assertEquals(url.searchParams.get("sasl"), "plain");
      assertEquals(decodeURIComponent(url.username), "bobacct");
      assertEquals(decodeURIComponent(url.password), "s3cret pass");
      const on = await serv(c, `sasl status -network ${second}`, /SASL/);
      assertMatch(on[0], /SASL PLAIN as bobacct/);
      const bad = await serv(c, `sasl set-plain -network ${second} onlyuser`, /Usage/);
      assertEquals(bad[0], "Give a username and a password.");
      await serv(c, `sasl reset -network ${second}`, /SASL is off/);
      const after = new URL((await store.connections.get(admin.id, second))!.url);
      assertEquals(after.searchParams.get("sasl"), null);
      assertEquals(after.password, "");
    });

    await t.step("certfp fingerprint and generate: the network's client certificate", async () => {
      const before = await serv(c, "certfp fingerprint", /^SHA-512/);
      const stored = (await store.connections.certificate(
        (await store.connections.get(admin.id, s.cid))!.id,
      ))!;
      assert(before.includes(`SHA-512 fingerprint: ${stored.fingerprint}`), before.join("\n"));
      const made = await serv(c, "certfp generate", /^SHA-512/);
      const now = (await store.connections.certificate(
        (await store.connections.get(admin.id, s.cid))!.id,
      ))!;
      assert(now.fingerprint !== stored.fingerprint);
      assert(made.includes(`SHA-512 fingerprint: ${now.fingerprint}`), made.join("\n"));
    });

    await t.step("certfp add, list, remove: certificates that log in", async () => {
      const fp = "AB:".repeat(31) + "AB";
      const bad = await serv(c, "certfp add 1234", /64 hex/);
      assertEquals(bad.length, 1);
      await serv(c, `certfp add ${fp}`, /^Added/);
      assertEquals(await store.certfp.owner("ab".repeat(32)), admin.id);
      const again = await serv(c, `certfp add ${"ab".repeat(32)}`, /registered already/);
      assertEquals(again.length, 1);
      const list = await serv(c, "certfp list", /^[0-9a-f]{64}$/);
      assertEquals(list, ["ab".repeat(32)]);
      await serv(c, `certfp remove ${fp}`, /^Removed/);
      await serv(c, `certfp remove ${fp}`, /No such certificate/);
      await serv(c, "certfp list", /No certificates/);
    });

    await t.step("channel status; channel update detaches and reattaches", async () => {
      await c.send("JOIN #svc");
      await c.waitFor((l) => l.command === "JOIN" && l.params[0] === "#svc");
      await poll("stored", async () => {
        const all = await store.conversations.listForConnection(
          (await store.connections.get(admin.id, s.cid))!.id,
        );
        return all.some((x) => x.name === "#svc");
      });
      await serv(c, "channel status", /^#svc: joined/);
      await serv(c, "channel update #svc -detached true", /^#svc is detached/);
      await c.waitFor((l) => l.command === "PART" && l.params[0] === "#svc");
      await serv(c, "channel status", /^#svc: detached/);
      await serv(c, "channel update #svc -detached false", /^#svc is attached/);
    });

    await t.step("network delete", async () => {
      await serv(c, `network delete ${second}`, /^Deleted network/);
      assertEquals(await store.connections.get(admin.id, second), undefined);
      const gone = await serv(c, `network delete ${second}`, /No network/);
      assertEquals(gone.length, 1);
    });

    let bob: BouncerClient | undefined;
    await t.step("user create, and what a user who is no admin may not do", async () => {
      const weak = await serv(c, "user create -username bob@example.com -password short", /./);
      assertEquals(weak.length, 1);
      assertEquals(await store.users.byEmail("bob@example.com"), undefined);
      await serv(
        c,
        'user create -username bob@example.com -password "bob horse battery"',
        /^Created user bob@example.com/,
      );
      const dup = await serv(
        c,
        'user create -username bob@example.com -password "bob horse battery"',
        /already registered/,
      );
      assertEquals(dup.length, 1);
      bob = await BouncerClient.attach(s.port, "bob@example.com", "bob horse battery", [
        "soju.im/bouncer-networks",
      ], "bob");
      for (
        const cmd of [
          "user create -username eve@example.com -password eve-horse-battery",
          "user update admin@example.com -admin false",
          "user delete admin@example.com",
          "server notice hello",
        ]
      ) {
        const [no] = await serv(bob, cmd, /Only admins/);
        assertEquals(no, "Only admins can do this.");
      }
      const help = await serv(bob, "help", /^user status/);
      assert(!help.some((l) => l.startsWith("user create")), help.join("\n"));
      const status = await serv(bob, "user status", /bob@example.com/);
      assertEquals(status, ["bob@example.com: no roles"]);
      const mine = await serv(bob, "network status", /no networks/);
      assertEquals(mine.length, 1);
      const all = await serv(c, "user status", /bob@example.com/);
      assert(all.includes("admin@example.com: admin"), all.join("\n"));
    });

    await t.step("server notice reaches IRC clients and browser tabs", async () => {
      const web = await s.app.listen();
      const api = new ApiClient(`http://127.0.0.1:${web.port}`);
      await api.login(EMAIL, PASSWORD);
      const socket = await EventSocket.open(api);
      try {
        await serv(c, "server notice Maintenance at noon", /^Sent to 2 users/);
        const got = await bob!.waitFor((l) => l.command === "NOTICE" && l.prefix === "parley");
        assertEquals(got.params[1], "Maintenance at noon");
        await c.waitFor((l) => l.command === "NOTICE" && l.prefix === "parley");
        const ev = await socket.waitFor((e) => e.event === "server_notice");
        assertEquals(ev.message, "Maintenance at noon");
        assertEquals(ev.from, EMAIL);
      } finally {
        await socket.close();
        await web.stop();
      }
    });

    await t.step("user update and delete, with the routes' rules", async () => {
      const last = await serv(c, "user update admin@example.com -admin false", /last admin/);
      assertEquals(last.length, 1);
      await serv(c, "user update bob@example.com -admin true", /^Updated user/);
      assertEquals((await store.users.byEmail("bob@example.com"))!.roles, ["admin"]);
      await serv(c, 'user update bob@example.com -password "new bob battery"', /^Updated/);
      // The old password's IRC client is ended, as a password change through the API ends it.
      await bob!.waitClosed();
      await serv(c, "user delete nobody@example.com", /No such user/);
      await serv(c, "user delete bob@example.com", /^Deleted user/);
      assertEquals(await store.users.byEmail("bob@example.com"), undefined);
    });

    await t.step("none of it reached the IRC network", async () => {
      await c.send(`PRIVMSG BouncerServ :network status`);
      // A line to the stranger through the same connection, after every command: once it is
      // there, anything sent before it would be too.
      await c.send("PRIVMSG bouncerserv :help");
      await c.send("PRIVMSG #svc :marker");
      const other = await RawIrcClient.connect(s.ngircd.port, "watcher");
      try {
        await other.join("#svc");
        await c.send("PRIVMSG #svc :marker 2");
        await other.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "marker 2");
      } finally {
        await other.close();
      }
      const heard = stranger.lines.filter((l) =>
        (l.command === "PRIVMSG" || l.command === "NOTICE") && l.nick === "alice"
      );
      assertEquals(heard.map((l) => l.raw), []);
      // Nor is a conversation kept for it.
      const convs = await store.conversations.listForConnection(
        (await store.connections.get(admin.id, s.cid))!.id,
      );
      assertEquals(convs.filter((x) => x.name.toLowerCase() === "bouncerserv"), []);
    });
    c.close();
  } finally {
    await stranger.close();
    await s.close();
  }
});
