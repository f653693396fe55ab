// deno-lint-ignore-file no-explicit-any -- API answers are read field by field
/**
 * Hostile IRC servers: a small fake server on loopback sends what no honest server would, and
 * Parley keeps serving everyone.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { EventSocket } from "../support/events.ts";
import { adminAndUser, ApiClient } from "../support/api.ts";
import { type HostileIrc, startHostileIrc } from "../support/hostile_irc.ts";
import { poll } from "../support/poll.ts";
import { startServer } from "../support/server.ts";

const FAST = { PARLEY_TEST_FAST_IRC: "1" };

/** Fails instead of hanging when what a test waits for never happens. */
function within<T>(what: string, p: Promise<T>, ms = 20_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

/** A request that must be answered: Parley stopping to answer is the bug this file guards against. */
const answered = <T>(what: string, p: Promise<T>) => within(`an answer: ${what}`, p);

async function history(api: ApiClient, connection: string, conversation: string) {
  const path = `/api/connection/${connection}/conversation/${encodeURIComponent(conversation)}`;
  return await answered("history", api.get(`${path}/messages`));
}

/** A Parley with one registered user (the admin) and a hostile IRC server. */
async function parleyAndHostile(email: string) {
  const server = await startServer({ env: FAST });
  const api = new ApiClient(server.url);
  await api.register(email);
  const irc = startHostileIrc();
  return {
    server,
    api,
    irc,
    async close() {
      await server.close();
      await irc.close();
    },
  };
}

/**
 * A connection of nick `victim` to `irc` that joined #room (Parley's JOIN answered by the
 * server); the server's side of it and the connection's id.
 */
async function victimInRoom(api: ApiClient, irc: HostileIrc) {
  const made = await api.post("/api/connections", {
    url: `irc://127.0.0.1:${irc.port}?nick=victim`,
    conversation_id: "#room",
  });
  const client = await irc.registered();
  await client.waitFor((l) => l === "JOIN #room");
  await client.send(":victim!v@h JOIN #room");
  return { client, id: made.body.connection_id as string };
}

Deno.test("server time tags: only with the capability and inside a sane window", async (t) => {
  const server = await startServer({ env: FAST });
  const api = new ApiClient(server.url);
  await api.register("time@example.com");
  const plain = startHostileIrc();
  const capable = startHostileIrc({ caps: ["server-time"] });
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
  const lines = (nick: string) => [
    `@time=3100-01-01T00:00:00.000Z :eve!e@h PRIVMSG ${nick} :${nick} future 1`,
    `@time=3100-01-01T00:00:00.000Z :eve!e@h PRIVMSG ${nick} :${nick} future 2`,
    `@time=1000-01-01T00:00:00.000Z :eve!e@h PRIVMSG ${nick} :${nick} past 1`,
    `@time=1000-01-01T00:00:00.000Z :eve!e@h PRIVMSG ${nick} :${nick} past 2`,
    `@time=1989-12-31T23:59:59.000Z :eve!e@h PRIVMSG ${nick} :${nick} too old`,
    `@time=${hourAgo} :eve!e@h PRIVMSG ${nick} :${nick} sane`,
    `:eve!e@h PRIVMSG ${nick} :${nick} last`,
  ];
  try {
    const cases = [
      { irc: plain, nick: "plain", serverTime: false },
      { irc: capable, nick: "capable", serverTime: true },
    ];
    for (const { irc, nick, serverTime } of cases) {
      await t.step(`${nick}: hostile times get the arrival time`, async () => {
        const before = Date.now();
        const made = await api.post("/api/connections", { url: `${irc.url}?nick=${nick}` });
        assertEquals(made.status, 200);
        const client = await irc.registered();
        for (const line of lines(nick)) await client.send(line);
        const got = await poll("the last line stored", async () => {
          const res = await history(api, made.body.connection_id, "eve");
          return res.body.messages?.some((m: any) => m.message === `${nick} last`) &&
            res.body.messages;
        });
        assertEquals(got.length, 7);
        const after = Date.now();
        for (const m of got) {
          const ms = Date.parse(m.ts);
          if (serverTime && m.message === `${nick} sane`) {
            assertEquals(ms, Date.parse(hourAgo), "an in-window server time is kept");
          } else {
            assert(ms >= before - 1000 && ms <= after + 1000, `${m.message} at ${m.ts}`);
          }
        }
        const notes = await answered("notifications", api.get("/api/notifications"));
        assertEquals(notes.status, 200);
        assert(notes.body.messages.some((m: any) => m.message === `${nick} future 2`));
      });
    }
    await t.step("the process still serves requests", async () => {
      const res = await answered("connections", api.get("/api/connections"));
      assertEquals(res.status, 200);
      assertEquals(res.body.connections.length, 2);
    });
  } finally {
    await server.close();
    await plain.close();
    await capable.close();
  }
});

Deno.test("line injection: CR, LF and NUL never reach the IRC server", async () => {
  const { api, irc, close } = await parleyAndHostile("inject@example.com");
  const base = `irc://127.0.0.1:${irc.port}`;
  try {
    for (
      const url of [
        `${base}?nick=a&realname=Jane%0D%0AINJECTED`,
        `${base}?nick=a&username=jd%00INJECTED`,
        `irc://jd:pw%0D%0AINJECTED@127.0.0.1:${irc.port}?nick=a`,
        `irc://jd%0AINJECTED:pw@127.0.0.1:${irc.port}?nick=a`,
        `${base}?nick=a%0D%0AINJECTED`,
      ]
    ) {
      const res = await api.post("/api/connections", { url });
      assertEquals([res.status, res.body.errors?.[0]?.path], [400, "/body/url"], url);
    }
    const badCommands = await api.post("/api/connections", {
      url: `${base}?nick=a`,
      on_connect_commands: ["/join #ok", "JOIN #x\r\nINJECTED"],
    });
    assertEquals(badCommands.body.errors[0].path, "/body/on_connect_commands/1");
    const made = await api.post("/api/connections", {
      url: `${base}?nick=victim`,
      conversation_id: "#room",
    });
    assertEquals(made.status, 200);
    const client = await irc.registered();
    const id = made.body.connection_id;
    await client.send(":victim!v@h JOIN #room");
    const send = (conversation: string, message: string) =>
      api.post(
        `/api/connection/${id}/conversation/${encodeURIComponent(conversation)}/messages`,
        { message },
      );
    await poll("joined", async () => (await send("#room", "hello")).status === 200);
    for (const conversation of ["#room x", "#room\u0007", "#a,#b"]) {
      const res = await send(conversation, "/say INJECTED");
      assertEquals(
        [res.status, res.body.errors?.[0]?.path],
        [400, "/params/conversation_id"],
        conversation,
      );
    }
    for (
      const message of ["hi\0INJECTED", "/quote PRIVMSG #room :a\r\nINJECTED", "/me a\nINJECTED"]
    ) {
      const res = await send("#room", message);
      assertEquals([res.status, res.body.errors?.[0]?.path], [400, "/body/message"], message);
    }
    // Plain text over several lines is several messages, each its own IRC line.
    assertEquals((await send("#room", "one\r\ntwo")).status, 200);
    await client.waitFor((l) => l === "PRIVMSG #room two");
    assert(client.lines.includes("PRIVMSG #room one"));
    assert(!client.lines.some((l) => l.includes("INJECTED") || l.includes("\0")), "injected");
  } finally {
    await close();
  }
});

Deno.test("commands: each argument is one parameter, and a key is one word", async () => {
  const { api, irc, close } = await parleyAndHostile("params@example.com");
  try {
    // Parley's own JOIN comes after registration, in its time: the server answers it, so it is
    // never among the lines the commands below send.
    const { client, id } = await victimInRoom(api, irc);
    const send = (message: string) =>
      api.post(`/api/connection/${id}/conversation/%23room/messages`, { message });
    await poll("joined", async () => (await send("hello")).status === 200);
    const refused = await send("/join #a key with spaces");
    assertEquals([refused.status, refused.body.errors?.[0]?.path], [400, "/body/message"]);
    assertStringIncludes(refused.body.errors[0].message, "Usage: /join");
    const colon = await send("/msg :bob hi");
    assertEquals([colon.status, colon.body.errors?.[0]?.path], [400, "/body/message"]);
    assertStringIncludes(colon.body.errors[0].message, "must be one word");
    for (const message of ["/join #b key", "/topic a new : topic", "/kick bob go away", "/away"]) {
      assertEquals((await send(message)).status, 200, message);
    }
    assertEquals((await send("/mode +o  bob")).status, 200);
    assertEquals((await send("/quote PRIVMSG #room  :two  words")).status, 200);
    await client.waitFor((l) => l === "PRIVMSG #room :two  words");
    const after = client.lines.lastIndexOf("PRIVMSG #room hello");
    // Not the modes Parley asks on its own after joining #room (irc/chat/inbound/membership.ts).
    const sent = client.lines.slice(after).filter((l) =>
      /^(JOIN|TOPIC|KICK|MODE|AWAY|PRIVMSG)\b/.test(l) && l !== "MODE #room"
    );
    assertEquals(sent, [
      "PRIVMSG #room hello",
      "JOIN #b key",
      "TOPIC #room :a new : topic",
      "KICK #room bob :go away",
      "AWAY",
      "MODE #room +o bob",
      "PRIVMSG #room :two  words",
    ]);
    assert(!client.lines.some((l) => l.startsWith("JOIN #a")), "the refused join was not sent");
  } finally {
    await close();
  }
});

async function connectionInfo(api: ApiClient, id: string): Promise<any> {
  const res = await answered("connections", api.get("/api/connections"));
  return res.body.connections.find((c: any) => c.connection_id === id);
}

Deno.test("hostile lines: a NICK without a new nick leaves the user's nick as it is", async () => {
  const { api, irc, close } = await parleyAndHostile("nonick@example.com");
  try {
    const made = await api.post("/api/connections", {
      url: `irc://127.0.0.1:${irc.port}?nick=victim`,
    });
    const client = await irc.registered();
    const id = made.body.connection_id;
    await poll("connected", async () => (await connectionInfo(api, id)).state === "connected");
    await client.send(":victim!v@h NICK");
    // Lines are handled in order: once the private message is stored, the NICK was handled.
    await client.send(":eve!e@h PRIVMSG victim :after the broken NICK");
    await poll(
      "the message",
      async () => (await history(api, id, "eve")).body.messages?.length > 0,
    );
    const conn = await connectionInfo(api, id);
    assertEquals([conn.state, conn.info.nick], ["connected", "victim"]);
    await client.send(":eve!e@h PRIVMSG victim :victim: still you?");
    await poll("a highlight", async () => {
      const messages = (await history(api, id, "eve")).body.messages ?? [];
      return messages.some((m: any) => m.message === "victim: still you?");
    });
  } finally {
    await close();
  }
});

Deno.test("hostile lines: a 20 MB line drops the connection; JOIN floods hit the cap", async (t) => {
  const { api, irc, close } = await parleyAndHostile("lines@example.com");
  try {
    await t.step("a line past 8 KB closes the connection with the reason", async () => {
      const made = await api.post("/api/connections", { url: `${irc.url}?nick=victim` });
      const client = await irc.registered();
      // The state events show the reason even if the reconnect (after 50 ms here) clears it.
      const events = await EventSocket.open(api);
      const huge = new TextEncoder().encode(
        `:eve!e@h PRIVMSG victim :${"a".repeat(20 * 1024 * 1024)}\r\n`,
      );
      await client.write(huge).catch(() => {}); // Parley hangs up midway
      await within("Parley to hang up", client.closed);
      const dropped = await events.waitFor((e) =>
        e.type === "connection" && e.connection_id === made.body.connection_id &&
        e.state === "disconnected" && e.info?.reason
      );
      await events.close();
      assertStringIncludes(dropped.info.reason, "longer than 8192 bytes");
      const eve = await history(api, made.body.connection_id, "eve");
      assertEquals(eve.status, 404, "no conversation was made from the line");
      const all = await answered("search", api.get("/api/search?match=aaaa"));
      assert(JSON.stringify(all.body).length < 100_000, "nothing 20 MB is stored");
      // It reconnects (the server may have been broken, not hostile) and the next line is fine.
      const again = await irc.registered();
      await again.send(`:eve!e@h PRIVMSG victim :${"b".repeat(8000)}`);
      const got = await poll("a long but legal line", async () => {
        const res = await history(api, made.body.connection_id, "eve");
        return res.status === 200 && res.body.messages.length && res.body.messages;
      });
      assertEquals(got[0].message.length, 8000);
      await api.delete(`/api/connection/${made.body.connection_id}`);
    });

    await t.step("2,000 forced JOINs stop at the conversation cap, said once", async () => {
      const set = await api.post("/api/settings", { max_conversations_per_connection: 50 });
      assertEquals(set.body.max_conversations_per_connection, 50);
      const made = await api.post("/api/connections", { url: `${irc.url}?nick=joiner` });
      const id = made.body.connection_id;
      const client = await irc.registered();
      const joins = [];
      for (let i = 0; i < 2100; i++) joins.push(`:joiner!j@h JOIN #c${i}\r\n`);
      await client.write(new TextEncoder().encode(joins.join("")));
      await client.send(":irc.hostile.test NOTICE joiner :all joins sent");
      const notes = await poll("the server conversation to catch up", async () => {
        const res = await answered("server messages", api.get(`/api/connection/${id}/messages`));
        const texts = res.body.messages.map((m: any) => m.message);
        return texts.includes("all joins sent") && texts;
      }, 60_000);
      assertEquals(notes.filter((m: string) => m.includes("the most this server keeps")).length, 1);
      const convs = await answered("conversations", api.get("/api/conversations"));
      const mine = convs.body.conversations.filter((c: any) => c.connection_id === id);
      assertEquals(mine.length, 50);
      const user = await answered("user", api.get("/api/user?connections=1&conversations=1"));
      assertEquals(user.status, 200);
    });
  } finally {
    await close();
  }
});

Deno.test("connections per user: 20 by default, a setting, admins exempt", async () => {
  const server = await startServer({ env: FAST });
  const { admin, user } = await adminAndUser(server.url);
  try {
    const create = (api: ApiClient, n: number) =>
      api.post("/api/connections", {
        url: `irc://127.0.0.1:1?nick=n${n}`,
        wanted_state: "disconnected",
      });
    for (let n = 0; n < 20; n++) assertEquals((await create(user, n)).status, 200);
    const over = await create(user, 20);
    assertEquals(over.status, 400);
    assert(
      /most this server allows \(20\)/.test(over.body.errors[0].message),
      over.body.errors[0].message,
    );
    for (let n = 0; n < 21; n++) assertEquals((await create(admin, n)).status, 200, "admin");
    await admin.post("/api/settings", { max_connections_per_user: 21 });
    assertEquals((await create(user, 20)).status, 200);
    assertEquals((await create(user, 21)).status, 400);
    const bad = await admin.post("/api/settings", { max_connections_per_user: 0 });
    assertEquals(bad.body.errors[0].path, "/body/max_connections_per_user");
  } finally {
    await server.close();
  }
});

Deno.test("private targets: ordinary users are refused unless allowed; admins are not", async (t) => {
  const server = await startServer({ env: { ...FAST, PARLEY_IRC_ALLOW_PRIVATE: "0" } });
  const { admin, user } = await adminAndUser(server.url);
  const irc = startHostileIrc();
  try {
    await t.step("a private literal address is a 400 at /body/url", async () => {
      for (
        const host of [
          `127.0.0.1:${irc.port}`,
          `localhost:${irc.port}`,
          "10.1.2.3",
          "[::1]:6667",
          "169.254.169.254",
          "192.168.1.1",
          "[fe80::1]",
          "0x7f.1",
        ]
      ) {
        const res = await user.post("/api/connections", { url: `irc://${host}?nick=u` });
        assertEquals([res.status, res.body.errors?.[0]?.path], [400, "/body/url"], host);
        assert(res.body.errors[0].message.includes("ask an admin"), res.body.errors[0].message);
      }
    });

    let id = "";
    await t.step("admins connect anywhere", async () => {
      const res = await admin.post("/api/connections", { url: `${irc.url}?nick=boss` });
      assertEquals(res.status, 200);
      await irc.registered();
      await poll(
        "admin connected",
        async () => (await connectionInfo(admin, res.body.connection_id)).state === "connected",
      );
    });

    await t.step("the server setting lets ordinary users in", async () => {
      await admin.post("/api/settings", { irc_allow_private: true });
      const res = await user.post("/api/connections", { url: `${irc.url}?nick=u` });
      assertEquals(res.status, 200);
      id = res.body.connection_id;
      await irc.registered();
      await poll(
        "user connected",
        async () => (await connectionInfo(user, id)).state === "connected",
      );
    });

    await t.step("checked again at connect time: refused, with the reason, no retry", async () => {
      await admin.post("/api/settings", { irc_allow_private: false });
      await user.post(`/api/connection/${id}`, { wanted_state: "disconnected" });
      const before = irc.clients.length;
      await user.post(`/api/connection/${id}`, { wanted_state: "connected" });
      const c = await poll("the refusal", async () => {
        const c = await connectionInfo(user, id);
        return c.state === "disconnected" && c.info.reason?.includes("ask an admin") && c;
      });
      assert(c.info.reason.includes("loopback"), c.info.reason);
      assertEquals(c.info.retry_in_ms, undefined);
      assertEquals(irc.clients.length, before, "no socket was opened");
    });
  } finally {
    // (A bare close() here was globalThis.close, which ends the whole test process.)
    await server.close();
    await irc.close();
  }
});

Deno.test("CTCP floods: few answers, and the user's own line goes first", async () => {
  const { api, irc, close } = await parleyAndHostile("ctcp@example.com");
  try {
    const made = await api.post("/api/connections", { url: `${irc.url}?nick=victim` });
    const id = made.body.connection_id;
    const client = await irc.registered();
    await poll("connected", async () => (await connectionInfo(api, id)).state === "connected");
    const flood = [];
    for (let i = 0; i < 100; i++) {
      flood.push(`:eve!e@h PRIVMSG victim :\x01${i % 2 ? "PING " + i : "VERSION"}\x01\r\n`);
    }
    await client.write(new TextEncoder().encode(flood.join("")));
    const sent = await api.post(`/api/connection/${id}/conversation//messages`, {
      message: "/msg eve hello",
    });
    assertEquals(sent.status, 200);
    await client.waitFor((l) => l === "PRIVMSG eve hello");
    // Everything of the flood has been read once a line sent after it is stored.
    await client.send(":eve!e@h PRIVMSG victim :after the flood");
    await poll("the flood read", async () => {
      const res = await history(api, id, "eve");
      return res.body.messages?.some((m: any) => m.message === "after the flood");
    });
    const answers = client.lines.filter((l) => l.startsWith("NOTICE eve :\x01"));
    assert(answers.length >= 1 && answers.length <= 6, `${answers.length} answers`);
    assert(answers.some((l) => l.includes("VERSION Parley")), answers.join(" | "));
    const hello = client.lines.indexOf("PRIVMSG eve hello");
    const before = client.lines.slice(0, hello).filter((l) => l.startsWith("NOTICE eve :\x01"));
    assert(before.length <= 3, `${before.length} answers went out before the user's line`);
  } finally {
    await close();
  }
});

Deno.test("hostile lines: a welcome repeated is not followed: no rejoins, no gaps", async () => {
  const { server, api, irc, close } = await parleyAndHostile("welcome@example.com");
  try {
    const { client, id } = await victimInRoom(api, irc);
    await client.send(":eve!e@h PRIVMSG #room :before");
    await poll(
      "the first line",
      async () => (await history(api, id, "#room")).body.messages?.at(-1)?.message === "before",
    );
    for (let i = 0; i < 30; i++) await client.send(`:irc.hostile.test 001 victim :Welcome ${i}`);
    await client.send(":eve!e@h PRIVMSG #room :after");
    // Lines are handled in order: once this one is stored, every welcome was handled.
    await poll(
      "the last line",
      async () => (await history(api, id, "#room")).body.messages?.at(-1)?.message === "after",
    );
    assertEquals(client.lines.filter((l) => l.startsWith("JOIN")), ["JOIN #room"]);
    const types = ((await history(api, id, "#room")).body.messages ?? []).map((m: any) => m.type);
    assert(!types.includes("gap"), `no gap was made: ${types}`);
    assertEquals(server.output().match(/INFO irc connected /g)?.length, 1);
    assertEquals(server.output().match(/welcomed the connection again/g)?.length, 1);
  } finally {
    await close();
  }
});
