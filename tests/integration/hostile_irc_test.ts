// deno-lint-ignore-file no-explicit-any -- API answers are read field by field
/**
 * Hostile IRC servers: a small fake server on loopback sends what no honest server would, and
 * Parley keeps serving everyone.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";
import { poll } from "../support/poll.ts";
import { startServer } from "../support/server.ts";

const FAST = { PARLEY_TEST_FAST_IRC: "1" };

/** Fails instead of hanging when Parley stops answering (the bug this file guards against). */
function answered<T>(what: string, p: Promise<T>, ms = 20_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Parley stopped answering: ${what}`)), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

async function history(api: ApiClient, connection: string, conversation: string) {
  const path = `/api/connection/${connection}/conversation/${encodeURIComponent(conversation)}`;
  return await answered("history", api.get(`${path}/messages`));
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
  const server = await startServer({ env: FAST });
  const api = new ApiClient(server.url);
  await api.register("inject@example.com");
  const irc = startHostileIrc();
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
    await client.waitFor((l) => l === "PRIVMSG #room :two");
    assert(client.lines.includes("PRIVMSG #room :one"));
    assert(!client.lines.some((l) => l.includes("INJECTED") || l.includes("\0")), "injected");
  } finally {
    await server.close();
    await irc.close();
  }
});
