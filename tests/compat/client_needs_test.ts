// deno-lint-ignore-file no-explicit-any -- answers are read field by field
/**
 * The eleven needs of Convos 8.07's own web client (docs/api.md): what that client sends and
 * reads, checked against Parley (the daemon and a real ngircd where IRC is involved).
 * Each check is labelled "client need N".
 */
import {
  check,
  compatServer,
  is,
  jsonIs,
  jsonLike,
  ok,
  statusIs,
  within,
} from "../support/compat.ts";
import type { ApiClient, ApiResponse } from "../support/api.ts";
import { EventSocket } from "../support/events.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";

const asRes = (body: unknown): ApiResponse => ({ status: 200, body, headers: new Headers() });

/** Sends over /events and resolves with the answer carrying the request's id (or undefined). */
async function ask(ws: EventSocket, body: Record<string, unknown>, ms = 5000) {
  return await within(ms, ws.request(body));
}

async function send(ws: EventSocket, conversation_id: string, message: string) {
  return await ask(ws, {
    method: "send",
    connection_id: "irc-localhost",
    conversation_id,
    message,
  });
}

Deno.test("client need 1: GET /api has host, honouring X-Forwarded-Host behind a proxy", async () => {
  const server = await compatServer({ env: { PARLEY_REVERSE_PROXY: "1" } });
  try {
    const api = server.client();
    let res = await api.get("/api");
    statusIs("client need 1", res, 200);
    jsonIs("client need 1", res, "/host", new URL(server.url).host);
    jsonIs("client need 1", res, "/basePath", "/api");
    res = await api.get("/api", { "X-Forwarded-Host": "chat.example.com" });
    jsonIs("client need 1", res, "/host", "chat.example.com");
  } finally {
    await server.close();
  }
});

Deno.test("client needs 2, 3: dictionaries and registration as the client sends it", async () => {
  const server = await compatServer();
  try {
    const api = server.client();
    const res = await api.get("/api/i18n/en");
    statusIs("client need 2", res, 200);
    const langs = Object.entries(res.body?.available_languages ?? {});
    ok("client need 2", langs.length > 1, "languages");
    for (const [code, lang] of langs) {
      is("client need 2", typeof (lang as any)?.language_team, "string", `${code} team: `);
    }
    // The client always sends exp and token, empty for a first user or an open server.
    const reg = await api.post("/api/user/register", {
      email: "superman@example.com",
      password: "longenough",
      exp: "",
      token: "",
    });
    statusIs("client need 3", reg, 200);
  } finally {
    await server.close();
  }
});

Deno.test("client needs 4-11: IRC through the events socket", async (t) => {
  const irc = await startIrcServer();
  const server = await compatServer({
    irc: true,
    seed: { users: [{ email: "superman@example.com", password: "s3cret", roles: ["admin"] }] },
  });
  const api: ApiClient = server.client();
  await api.login("superman@example.com", "s3cret");
  const ws = await EventSocket.open(api);
  await ws.waitFor((e) => e.event === "handshake");
  const bob = await RawIrcClient.connect(irc.port, "bob");
  try {
    await t.step("4: sasl=none in a connection URL", async () => {
      const res = await api.post("/api/connections", {
        url: `irc://127.0.0.1:${irc.port}?nick=superman&sasl=none`,
        conversation_id: "#convos",
      });
      statusIs("client need 4", res, 200);
      if (res.status !== 200) {
        // The rest needs the connection: make it without the parameter.
        await api.post("/api/connections", {
          url: `irc://127.0.0.1:${irc.port}?nick=superman`,
          conversation_id: "#convos",
        });
      }
      await poll(
        "connected",
        async () =>
          (await api.get("/api/connections")).body?.connections?.[0]?.state === "connected",
      );
      // superman in #convos first, so that it is superman who holds the channel's op (the /mode
      // and /kick of need 11); the join follows registration, later than "connected".
      await poll(
        "superman in #convos",
        async () =>
          (await api.get("/api/user?connections=true&conversations=true")).body?.conversations
            ?.some((c: { conversation_id: string; frozen: string }) =>
              c.conversation_id === "#convos" && c.frozen === ""
            ),
      );
      // Connected is not joined: bob asks the server (NAMES, from outside the channel) until
      // superman's JOIN went through, and only then joins.
      await bob.waitForMember("#convos", "superman");
      await bob.join("#convos");
    });

    await t.step("11: state events of a connection", async () => {
      // The channel's thaw (frozen: "") follows the server's JOIN echo, which Parley may handle
      // just after the IRC server lists it as a member: wait for each kind, briefly.
      for (const type of ["connection", "info", "frozen"]) {
        await ws.waitFor(
          (e) => e.event === "state" && e.connection_id === "irc-localhost" && e.type === type,
          10_000,
        )
          .catch(() => undefined);
      }
      const conn = ws.events.filter((e) =>
        e.event === "state" && e.connection_id === "irc-localhost"
      );
      ok("client need 11", conn.some((e) => e.type === "connection"), "a connection state event");
      ok("client need 11", conn.some((e) => e.type === "info"), "an info state event");
      ok("client need 11", conn.some((e) => e.type === "frozen"), "a frozen state event");
    });

    await t.step("5: /list", async () => {
      await bob.join("#listme");
      await bob.send("TOPIC #listme :a topic to list");
      await bob.waitFor((l) => l.command === "TOPIC");
      let ev = await send(ws, "", "/list");
      jsonIs("client need 5", asRes(ev), "/errors", undefined);
      const listed = (ev?.conversations ?? []).find((c: any) => c.name === "#listme");
      is("client need 5", listed, { name: "#listme", n_users: 1, topic: "a topic to list" });
      jsonLike("client need 5", asRes(ev), "/n_conversations", /^\d+$/);
      is("client need 5", typeof ev?.done, "boolean", "done: ");
      ev = await send(ws, "", "/list /listm/ refresh");
      jsonIs("client need 5", asRes(ev), "/errors", undefined);
      is(
        "client need 5",
        (ev?.conversations ?? []).map((c: any) => c.name),
        ["#listme"],
        "filtered: ",
      );
    });

    await t.step("9: /names has participants", async () => {
      const ev = await send(ws, "#convos", "/names");
      const nicks = (ev?.participants ?? []).map((p: any) => p.nick).sort();
      is("client need 9", nicks, ["bob", "superman"], "participants: ");
      const me = (ev?.participants ?? []).find((p: any) => p.nick === "superman");
      is("client need 9", typeof me?.mode, "string", "mode: ");
    });

    await t.step("8: message types are Convos's", async () => {
      await bob.say("#convos", "a private message");
      await bob.say("#convos", "\x01ACTION waves\x01");
      await bob.send("NOTICE #convos :a notice");
      const got = async (text: string) =>
        await within(5000, ws.waitFor((e) => e.event === "message" && e.message === text));
      await is("client need 8", (await got("a private message"))?.type, "private", "event type: ");
      is("client need 8", (await got("waves"))?.type, "action", "event type: ");
      is("client need 8", (await got("a notice"))?.type, "notice", "event type: ");
      const history = await api.get(
        "/api/connection/irc-localhost/conversation/%23convos/messages",
      );
      const mine = (history.body?.messages ?? []).find((m: any) =>
        m.message === "a private message"
      );
      is("client need 8", mine?.type, "private", "history type: ");
      await bob.say("#convos", "superman: searchable words");
      await poll(
        "indexed",
        async () => (await api.get("/api/search?match=searchable")).body?.messages?.length > 0,
        5000,
      )
        .catch(() => {});
      const found = await api.get("/api/search?match=searchable");
      is("client need 8", found.body?.messages?.[0]?.type, "private", "search type: ");
      const notes = await api.get("/api/notifications");
      is("client need 8", notes.body?.messages?.[0]?.type, "private", "notification type: ");
    });

    await t.step("7: a frame without method is a ping", async () => {
      const n = ws.events.length;
      ws.ws.send("{}");
      const ev = await within(
        3000,
        ws.waitFor((e) => ws.events.indexOf(e) >= n && (e.event === "pong" || e.errors)),
      );
      jsonIs("client need 7", asRes(ev), "/event", "pong");
      jsonIs("client need 7", asRes(ev), "/errors", undefined);
    });

    await t.step("11: join, nick_change, mode, part with kicker, quit; /mode answers", async () => {
      const carol = await RawIrcClient.connect(irc.port, "carol");
      const state = (test: (e: any) => boolean) =>
        within(5000, ws.waitFor((e) => e.event === "state" && test(e)));
      await carol.join("#convos");
      ok("client need 11", await state((e) => e.type === "join" && e.nick === "carol"), "join");
      await carol.send("NICK carol2");
      ok(
        "client need 11",
        await state((e) => e.type === "nick_change" && e.new_nick === "carol2"),
        "nick_change",
      );
      await send(ws, "#convos", "/mode +o carol2");
      ok("client need 11", await state((e) => e.type === "mode"), "mode");
      const modes = await send(ws, "#convos", "/mode");
      jsonIs("client need 11", asRes(modes), "/errors", undefined);
      ok(
        "client need 11",
        modes && ("modes" in modes || "mode" in modes),
        "/mode answers the modes",
      );
      await send(ws, "#convos", "/kick carol2 out");
      const kick = await state((e) =>
        e.nick === "carol2" && (e.type === "part" || e.type === "kick")
      );
      is("client need 11", kick?.type, "part", "a kick is a part: ");
      is("client need 11", kick?.kicker, "superman", "kicker: ");
      await bob.send("PART #convos :bye");
      ok("client need 11", await state((e) => e.type === "part" && e.nick === "bob"), "part");
      await bob.join("#convos");
      // carol2 was kicked: back in the channel first, or superman would not see her quit.
      await carol.join("#convos");
      await carol.close();
      ok("client need 11", await state((e) => e.type === "quit" && e.nick === "carol2"), "quit");
    });

    await t.step("6: scroll-back with millisecond cursors", async () => {
      for (let i = 0; i < 120; i++) await bob.say("#convos", `burst ${i}`);
      await poll("the burst stored", async () => {
        const h = await api.get(
          "/api/connection/irc-localhost/conversation/%23convos/messages?limit=1",
        );
        return h.body?.messages?.[0]?.message === "burst 119";
      });
      // Convos's client asks for the page before the first shown message's time, with three
      // decimals, 30 at a time.
      const seen: string[] = [];
      let before = "";
      for (let page = 0; page < 20; page++) {
        const q = before ? `&before=${encodeURIComponent(before)}` : "";
        const res = await api.get(
          `/api/connection/irc-localhost/conversation/%23convos/messages?limit=30${q}`,
        );
        const msgs = (res.body?.messages ?? []) as any[];
        if (!msgs.length) break;
        seen.unshift(...msgs.map((m) => m.message));
        before = new Date(msgs[0].ts).toISOString(); // cut to milliseconds
        if (!res.body?.before) break;
      }
      const burst = seen.filter((m) => m.startsWith("burst "));
      is(
        "client need 6",
        burst,
        Array.from({ length: 120 }, (_, i) => `burst ${i}`),
        "every burst line once, in order: ",
      );
    });

    await t.step("10: GET /file/:uid/:fid and GET /logout", async () => {
      const form = new FormData();
      form.append("file", new File(["hello"], "hello.txt", { type: "text/plain" }));
      const up = await api.post("/api/files", form);
      const file = up.body?.files?.[0];
      const res = await api.get(`/file/${file?.uid}/${file?.id}`);
      ok(
        "client need 10",
        res.status >= 300 && res.status < 400,
        `a redirect, got ${res.status}`,
      );
      check("client need 10", () => {
        const loc = res.headers.get("location") ?? "";
        if (!loc.includes(`/api/files/${file?.uid}/${file?.id}`)) {
          throw new Error(`Location ${loc} is not the API's file URL`);
        }
      });

      const csrf = (await api.get("/api/user")).body?.csrf;
      const out = await api.get(`/logout?csrf=${encodeURIComponent(csrf ?? "")}`);
      statusIs("client need 10", out, 302);
      statusIs("client need 10", await api.get("/api/user"), 401);
      await api.login("superman@example.com", "s3cret");
      const same = await api.get("/logout", { "Sec-Fetch-Site": "same-origin" });
      statusIs("client need 10", same, 302);
      statusIs("client need 10", await api.get("/api/user"), 401);
    });
  } finally {
    await ws.close();
    await bob.close();
    await server.close();
    await irc.close();
  }
});
