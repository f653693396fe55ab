/**
 * Every table group of the store behaves the same on SQLite and on PostgreSQL: users and the
 * first-admin rule, sessions, settings, profiles, push, connections, conversations with their
 * unread and notification counts, and files with their contents.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { forEachStore } from "../support/backends.ts";
import { MAX_DRAFT } from "../../protocol/limits.ts";
import { type Store, storeBackend } from "../../store/mod.ts";
import { BACKENDS } from "../../store/backends.ts";
import { FileTooLargeError } from "../../store/files.ts";

const stream = (...parts: (string | Uint8Array)[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const p of parts) c.enqueue(typeof p === "string" ? new TextEncoder().encode(p) : p);
      c.close();
    },
  });

async function readAll(s: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(s).arrayBuffer());
}

async function userAndConnection(store: Store, email = "a@example.org") {
  const user = await store.users.create(email, "hash", []);
  const conn = await store.connections.create({
    userId: user.id,
    connectionId: "irc-example",
    name: "example",
    url: "irc://irc.example.org?nick=a",
    onConnectCommands: [],
    wantedState: "connected",
  });
  return { user, conn };
}

forEachStore("store: users, registration and roles", async (store, _b, t) => {
  await t.step("concurrent first registrations make exactly one admin", async () => {
    const results = await Promise.all(
      ["z@example.org", "y@example.org", "x@example.org", "w@example.org"].map((e) =>
        store.users.register(e, "hash", false)
      ),
    );
    const made = results.filter((r) => "user" in r);
    assertEquals(made.length, 1, JSON.stringify(results));
    assertEquals(made[0].user.roles, ["admin"]);
    assertEquals(results.filter((r) => "refused" in r && r.refused === "invite").length, 3);
  });
  await t.step("open registration, a taken email, listing by email, roles", async () => {
    const open = await store.users.register("b@example.org", "hash", true);
    assert("user" in open && open.user.roles.length === 0, JSON.stringify(open));
    assertEquals(await store.users.register("b@example.org", "hash", true), { refused: "taken" });
    // Code point order: "B" before "a" (SQLite's and PostgreSQL's "C" collation alike).
    await store.users.create("Bob@example.org", "!", ["bot"]);
    const emails = (await store.users.list(undefined, 10)).map((u) => u.email);
    assertEquals(emails, [...emails].sort());
    assertEquals(emails[0], "Bob@example.org");
    assertEquals((await store.users.list("b@example.org", 10)).length, emails.length - 2);
    assertEquals((await store.users.withRole("bot")).map((u) => u.email), ["Bob@example.org"]);
    assertEquals(await store.users.countPeople(), 2);
    assertEquals(await store.users.count(), 3);
  });
  await t.step("update and remove bump the generation", async () => {
    const u = (await store.users.byEmail("b@example.org"))!;
    const g = store.users.generation;
    const changed = await store.users.update(u.id, { highlightKeywords: ["kettle", "ü"] });
    assertEquals(changed?.highlightKeywords, ["kettle", "ü"]);
    assert(store.users.generation > g);
    assertEquals(await store.users.remove(u.id), true);
    assertEquals(await store.users.byId(u.id), undefined);
    assertEquals(await store.users.remove(u.id), false);
  });
  await t.step("an owed default connection is taken once, by one of racing logins", async () => {
    const owed = await store.users.create("owed@example.org", "hash", [], true);
    assertEquals(owed.defaultConnectionDue, true);
    assertEquals((await store.users.byId(owed.id))?.defaultConnectionDue, true);
    const plain = await store.users.create("plain@example.org", "hash", []);
    assertEquals(plain.defaultConnectionDue, false);
    const takes = await Promise.all(
      Array.from({ length: 4 }, () => store.users.takeDefaultConnectionDue(owed.id)),
    );
    assertEquals(takes.filter(Boolean).length, 1, JSON.stringify(takes));
    assertEquals((await store.users.byId(owed.id))?.defaultConnectionDue, false);
    assertEquals(await store.users.takeDefaultConnectionDue(plain.id), false);
  });
});

forEachStore("store: sessions, settings, profiles and push", async (store, _b, t) => {
  const user = await store.users.create("s@example.org", "hash", []);
  await t.step("sessions", async () => {
    const now = Date.now();
    await store.sessions.create("h1", user.id, now + 60_000);
    await store.sessions.create("h2", user.id, now - 1);
    assertEquals((await store.sessions.get("h1"))?.userId, user.id);
    assertEquals((await store.sessions.get("h1"))?.passwordAt, 0, "no password given");
    await store.sessions.create("h3", user.id, now + 60_000, now - 5);
    assertEquals((await store.sessions.get("h3"))?.passwordAt, now - 5);
    await store.sessions.remove("h3");
    await store.sessions.noteClient("h1", "Firefox", "203.0.113.9");
    const list = await store.sessions.listForUser(user.id, now);
    assertEquals(list.map((s) => [s.idHash, s.userAgent, s.address]), [
      ["h1", "Firefox", "203.0.113.9"],
    ]);
    assertEquals(await store.sessions.purge(now), 1);
    assertEquals(await store.sessions.removePublic(user.id, "nope"), false);
    assertEquals(await store.sessions.removePublic(user.id, list[0].publicId), true);
    assertEquals(await store.sessions.get("h1"), undefined);
  });
  await t.step("settings: typed, defaults for missing and mistyped values", async () => {
    assertEquals((await store.settings.current()).open_to_public, false);
    await store.settings.set({ open_to_public: true, organization_name: "Ünïcode Ltd" });
    await store.settings.set({ max_connections_per_user: "many" as unknown as number });
    const s = await store.settings.current("irc://example.org");
    assertEquals(s.open_to_public, true);
    assertEquals(s.organization_name, "Ünïcode Ltd");
    assertEquals(s.max_connections_per_user, 20);
    assertEquals(s.default_connection, "irc://example.org");
  });
  await t.step("profiles: one default", async () => {
    const base = {
      url: "irc://irc.example.org",
      isDefault: true,
      isForced: false,
      maxBulkMessageSize: 3,
      maxMessageLength: 512,
      serviceAccounts: ["chanserv"],
      webircPassword: "",
    };
    await store.profiles.save({ ...base, id: "irc-b" });
    const a = await store.profiles.save({ ...base, id: "irc-a", skipQueue: true });
    assertEquals(a.skipQueue, true);
    const list = await store.profiles.list();
    assertEquals(list.map((p) => [p.id, p.isDefault]), [["irc-a", true], ["irc-b", false]]);
    assertEquals(await store.profiles.remove("irc-b"), true);
    assertEquals((await store.profiles.get("irc-a"))?.serviceAccounts, ["chanserv"]);
  });
  await t.step("push: subscriptions follow their session; auto away", async () => {
    await store.sessions.create("hp", user.id, Date.now() + 60_000);
    const sub = { endpoint: "https://push.example/1", sessionHash: "hp", p256dh: "k", auth: "a" };
    await store.push.save({ ...sub, userId: user.id });
    assertEquals(await store.push.countForUser(user.id), 1);
    assertEquals(await store.push.remove(sub.endpoint, user.id + 1), false);
    await store.push.setAutoAway(user.id, true);
    assertEquals(await store.push.autoAwayUsers(), [user.id]);
    await store.sessions.remove("hp");
    assertEquals(await store.push.forUser(user.id), [], "gone with the session");
    await store.push.setAutoAway(user.id, false);
    assertEquals(await store.push.autoAway(user.id), false);
  });
});

forEachStore("store: connections and conversations", async (store, _b, t) => {
  const { user, conn } = await userAndConnection(store);
  await t.step("connections: update, wanted, list order", async () => {
    await store.connections.create({
      userId: user.id,
      connectionId: "irc-Zeta",
      name: "z",
      url: "irc://z.example.org",
      onConnectCommands: ["/msg x y"],
      wantedState: "disconnected",
      nick: "zed",
    });
    assertEquals((await store.connections.list(user.id)).map((c) => c.connectionId), [
      "irc-Zeta",
      "irc-example",
    ]);
    const up = await store.connections.update(conn.id, {
      onConnectCommands: ["/join #a"],
      nick: "a2",
    });
    assertEquals([up?.onConnectCommands, up?.nick, up?.url], [
      ["/join #a"],
      "a2",
      "irc://irc.example.org?nick=a",
    ]);
    assertEquals((await store.connections.wanted()).map((c) => c.id), [conn.id]);
    assertEquals((await store.connections.get(user.id, "irc-Zeta"))?.nick, "zed");
  });
  await t.step("conversations: unread, notifications, mark read, rename", async () => {
    const chan = await store.conversations.ensure(conn.id, "#kettle", "#Kettle");
    const again = await store.conversations.ensure(conn.id, "#kettle", "#other");
    assertEquals([again.id, again.name], [chan.id, "#Kettle"]);
    const pm = await store.conversations.ensure(conn.id, "bob", "Bob");
    for (let i = 0; i < 3; i++) {
      await store.messages.append({
        conversation: chan.id,
        userId: user.id,
        from: "bob",
        type: "private",
        text: `hi ${i}`,
        unread: true,
        highlight: i === 1,
      });
    }
    const list = await store.conversations.listForUser(user.id);
    const k = list.find((c) => c.id === chan.id)!;
    assertEquals([k.unread, k.notifications, k.connectionId], [3, 1, "irc-example"]);
    assertEquals(list.map((c) => c.conversationId), ["#kettle", "bob"]);
    assertEquals(await store.messages.notifications?.unread(user.id), 1);
    await store.conversations.markRead(chan.id);
    const read = (await store.conversations.get(conn.id, "#kettle"))!;
    assertEquals(read.unread, 0);
    assert(read.lastRead > 0);
    await store.messages.notifications?.markRead(user.id);
    assertEquals(await store.messages.notifications?.unread(user.id), 0);
    await store.conversations.setJoined(chan.id, true);
    await store.conversations.setTopic(chan.id, "tea");
    assertEquals(
      [
        (await store.conversations.get(conn.id, "#kettle"))?.joined,
        (await store.conversations
          .get(conn.id, "#kettle"))?.topic,
      ],
      [true, "tea"],
    );
    const g = store.conversations.generation;
    await store.conversations.rename(pm.id, "robert", "Robert");
    assert(store.conversations.generation > g);
    assertEquals((await store.conversations.get(conn.id, "robert"))?.id, pm.id);
    assertEquals(await store.conversations.count(conn.id), 2);
  });
  await t.step("conversations: notification level and draft", async () => {
    const chan = (await store.conversations.get(conn.id, "#kettle"))!;
    assertEquals(chan.notify, "");
    const g = store.conversations.generation;
    await store.conversations.setNotify(chan.id, "muted");
    // The IRC side caches conversations by generation and reads the level from them.
    assert(store.conversations.generation > g);
    assertEquals((await store.conversations.get(conn.id, "#kettle"))?.notify, "muted");
    const listed = (await store.conversations.listForUser(user.id)).find((c) => c.id === chan.id);
    assertEquals(listed?.notify, "muted");
    assertEquals(await store.conversations.draft(chan.id), "");
    await store.conversations.setDraft(chan.id, "half a line");
    assertEquals(await store.conversations.draft(chan.id), "half a line");
    await store.conversations.setDraft(chan.id, "x".repeat(MAX_DRAFT + 10));
    assertEquals((await store.conversations.draft(chan.id)).length, MAX_DRAFT);
    await store.conversations.setDraft(chan.id, "");
    assertEquals(await store.conversations.draft(chan.id), "");
  });
  await t.step("conversations: a channel's detachment and its options", async () => {
    const chan = (await store.conversations.get(conn.id, "#kettle"))!;
    assertEquals(chan.detach, {
      detached: false,
      relayDetached: "",
      reattachOn: "",
      detachAfter: 0,
    });
    await store.conversations.setDetach(chan.id, { detached: true, reattachOn: "highlight" });
    await store.conversations.setDetach(chan.id, { relayDetached: "none", detachAfter: 90 });
    const got = (await store.conversations.get(conn.id, "#kettle"))!;
    assertEquals(got.detach, {
      detached: true,
      relayDetached: "none",
      reattachOn: "highlight",
      detachAfter: 90,
    });
    const listed = (await store.conversations.listForConnection(conn.id)).find((c) =>
      c.id === chan.id
    );
    assertEquals(listed?.detach.detached, true);
    const detaching = [{ userId: user.id, connectionId: conn.connectionId }];
    assertEquals(await store.conversations.withDetachment(), detaching);
    await store.conversations.setDetach(chan.id, { detached: false });
    assertEquals((await store.conversations.get(conn.id, "#kettle"))?.detach.detached, false);
    // Set to detach itself after 90 s: still one whose detachment runs.
    assertEquals(await store.conversations.withDetachment(), detaching);
    await store.conversations.setDetach(chan.id, { detachAfter: 0 });
    assertEquals(await store.conversations.withDetachment(), []);
  });
  await t.step("conversations: a channel's key, kept, bounded and forgotten", async () => {
    const chan = (await store.conversations.get(conn.id, "#kettle"))!;
    assertEquals(chan.key, "");
    await store.conversations.setKey(chan.id, "s3cret!");
    assertEquals((await store.conversations.get(conn.id, "#kettle"))?.key, "s3cret!");
    const listed = (await store.conversations.listForConnection(conn.id, { unread: false }))
      .find((c) => c.id === chan.id);
    assertEquals(listed?.key, "s3cret!");
    // Not a key: changes nothing.
    for (const bad of ["two words", "a,b", "bell\u0007", "k".repeat(101), "*"]) {
      await store.conversations.setKey(chan.id, bad);
    }
    assertEquals((await store.conversations.get(conn.id, "#kettle"))?.key, "s3cret!");
    await store.conversations.setKey(chan.id, "k".repeat(100));
    assertEquals((await store.conversations.get(conn.id, "#kettle"))?.key, "k".repeat(100));
    await store.conversations.setKey(chan.id, "");
    assertEquals((await store.conversations.get(conn.id, "#kettle"))?.key, "");
  });
  await t.step("removing a connection removes its conversations and messages", async () => {
    assertEquals(await store.connections.remove(conn.id), true);
    assertEquals(await store.conversations.listForConnection(conn.id), []);
    assertEquals(await store.messages.notifications?.list(user.id, 10), {
      messages: [],
      end: true,
    });
  });
});

forEachStore("store: files and their contents", async (store, backend, t) => {
  const user = await store.users.create("f@example.org", "hash", []);
  const big = new Uint8Array(700_000).map((_, i) => i % 251);
  await t.step("contents come back byte for byte, across chunks", async () => {
    const f = await store.files.save(
      { userId: user.id, name: "big.bin", type: "application/octet-stream", writeOnly: false },
      stream(big.subarray(0, 123_457), big.subarray(123_457)),
      1_000_000,
    );
    assertEquals(f.size, big.length);
    assertEquals(await readAll(await store.files.open(f)), big);
    assertEquals((await store.files.get(f.id))?.name, "big.bin");
  });
  await t.step("too large: refused, nothing kept", async () => {
    const before = (await store.files.page(user.id, undefined, 10)).files.length;
    let refused = false;
    try {
      await store.files.save(
        { userId: user.id, name: "x", type: "text/plain", writeOnly: false },
        stream("12345", "67890"),
        9,
      );
    } catch (err) {
      refused = err instanceof FileTooLargeError;
    }
    assert(refused, `${backend}: FileTooLargeError`);
    assertEquals((await store.files.page(user.id, undefined, 10)).files.length, before);
  });
  await t.step("a chosen id is replaced in place; paging newest first", async () => {
    const one = await store.files.save(
      { userId: user.id, name: "a.txt", type: "text/plain", writeOnly: false, replace: "key" },
      stream("first"),
      100,
    );
    const two = await store.files.save(
      { userId: user.id, name: "b.txt", type: "text/plain", writeOnly: true, replace: "key" },
      stream("second"),
      100,
    );
    assertEquals([two.id, two.seq, two.writeOnly], ["key", one.seq, true]);
    assertEquals(new TextDecoder().decode(await readAll(await store.files.open(two))), "second");
    for (let i = 0; i < 3; i++) {
      await store.files.save(
        { userId: user.id, name: `${i}.txt`, type: "text/plain", writeOnly: false },
        stream(String(i)),
        100,
      );
    }
    const first = await store.files.page(user.id, undefined, 2);
    assertEquals(first.files.map((f) => f.name), ["2.txt", "1.txt"]);
    const next = await store.files.page(user.id, first.files[1].id, 2);
    assertEquals(next.files.map((f) => f.name), ["0.txt", "b.txt"]);
    assertEquals(next.prev, "prev");
  });
  await t.step("remove and removeUser", async () => {
    const page = await store.files.page(user.id, undefined, 10);
    assertEquals(await store.files.remove(user.id, [page.files[0].id, "nope"]), 1);
    await store.files.removeUser(user.id);
    assertEquals((await store.files.page(user.id, undefined, 10)).files, []);
  });
});

forEachStore("store: its backend object says what differs by backend", async (store, backend) => {
  const entry = BACKENDS.find((b) => b.name === backend)!;
  assertEquals(store.backend.name, backend);
  // The database URL chooses the same backend object the store carries: its scheme's, or the
  // default one when there is no URL.
  const url = entry.schemes.length ? `${entry.schemes[0]}://127.0.0.1/parley` : undefined;
  assert(await storeBackend(url) === store.backend);
  // Several daemons share the database (deps.ts starts the cluster on this), and `parley store
  // copy` reads one backend and writes another: the registry says so as the backend does.
  assertEquals(
    {
      clustered: store.backend.clustered,
      copyFrom: !!store.backend.copySource,
      copyTo: !!store.backend.copyInto,
    },
    entry.offers,
  );
});
