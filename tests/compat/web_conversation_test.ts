// deno-lint-ignore-file no-explicit-any -- answers are read field by field
/** Convos 8.07 t/web-conversation.t ported: conversations, unread counts and notifications. */
import { compatServer, is, jsonHasnt, jsonIs, statusIs } from "../support/compat.ts";
import type { ApiClient } from "../support/api.ts";
import { EventSocket } from "../support/events.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";

/** Convos's conversation object, with what this port cannot set by hand taken from `actual`. */
function conversation(name: string, connectionId: string, extra: Record<string, unknown>) {
  return {
    connection_id: connectionId,
    conversation_id: name.toLowerCase(),
    frozen: "",
    info: {},
    name,
    topic: "",
    unread: 0,
    notifications: 0,
    // Parley's notification level: a channel's default, mentions only.
    notify: /^[#&]/.test(name) ? "mentions" : "all",
    // Parley's detachment from IRC clients.
    detached: false,
    ...extra,
  };
}

async function convs(api: ApiClient) {
  return await api.get("/api/conversations");
}

Deno.test("web-conversation.t", async () => {
  const irc = await startIrcServer();
  // web-conversation.t:8 (admin only because Parley lets admins reach loopback IRC servers).
  const server = await compatServer({
    irc: true,
    seed: { users: [{ email: "superman@example.com", password: "s3cret", roles: ["admin"] }] },
  });
  const api = server.client();
  let supergirl: RawIrcClient | undefined;
  let ws: EventSocket | undefined;
  const url = `irc://127.0.0.1:${irc.port}?nick=superman`;
  try {
    const login = await api.post("/api/user/login", {
      email: "superman@example.com",
      password: "s3cret",
    });
    statusIs("web-conversation.t:12", login, 200);

    // web-conversation.t:14-22: a connected connection; Supergirl writes in #Convos, which has
    // 42 unread messages. Here she writes 42 messages, none naming superman.
    await api.post("/api/connections", { url, conversation_id: "#Convos" });
    ws = await EventSocket.open(api);
    supergirl = await RawIrcClient.connect(irc.port, "Supergirl");
    await supergirl.join("#Convos");
    await supergirl.waitForMember("#Convos", "superman");
    await supergirl.say("#Convos", "not a superdupersuperman?");
    for (let i = 1; i < 42; i++) await supergirl.say("#Convos", `line ${i}`);
    await poll("42 unread", async () => (await convs(api)).body?.conversations?.[0]?.unread === 42);
    // web-conversation.t:132 (moved up): none of these is a notification.
    jsonIs("web-conversation.t:132", await api.get("/api/notifications"), "/messages", []);

    let res = await convs(api);
    statusIs("web-conversation.t:23", res, 200);
    jsonIs("web-conversation.t:23", res, "/conversations", [
      conversation("#Convos", "irc-localhost", { unread: 42 }),
    ]);

    // web-conversation.t:38: #Notified with 2 notifications: Supergirl names superman twice.
    await ws.request({
      method: "send",
      connection_id: "irc-localhost",
      conversation_id: "",
      message: "/join #Notified",
    });
    await supergirl.join("#Notified");
    await supergirl.waitForMember("#Notified", "superman");
    await supergirl.say("#Notified", "superman: one");
    await supergirl.say("#Notified", "superman: two");
    await poll(
      "2 unread in #notified",
      async () =>
        (await convs(api)).body?.conversations?.find((c: any) => c.conversation_id === "#notified")
          ?.unread === 2,
    );
    res = await convs(api);
    statusIs("web-conversation.t:39", res, 200);
    // Convos sets the count by hand and leaves unread at 0; here the two messages are unread too.
    jsonIs("web-conversation.t:39", res, "/conversations", [
      conversation("#Convos", "irc-localhost", { unread: 42 }),
      conversation("#Notified", "irc-localhost", { unread: 2, notifications: 2 }),
    ]);

    // web-conversation.t:65-66: another connection, irc://example, with #superheroes (its unread
    // count of 34 is set by hand in Convos: left out, perl internals).
    await api.post("/api/connections", { url: "irc://example", conversation_id: "#superheroes" });
    // Parley really tries irc://example: its state cycles through connecting (a DNS lookup that
    // can take seconds under load) and disconnected (the backoff). Convos's never connects, so
    // the listing compared is one taken while it is disconnected.
    res = await poll("irc-example to give up", async () => {
      const got = await api.get("/api/user?connections=true&conversations=true");
      const c = got.body?.connections?.find((c: any) => c.connection_id === "irc-example");
      return c?.state === "disconnected" ? got : undefined;
    }, 30_000);
    statusIs("web-conversation.t:67", res, 200);
    // Parley's info also says why and where a connection failed (reason, host, port); Convos's
    // test never tries to connect. Only the fields Convos names are compared. Convos's test
    // server offers no IRCv3 capability; ngircd offers multi-prefix, which is left out here.
    const connections = {
      ...res,
      body: {
        connections: res.body?.connections?.map((c: any) => ({
          ...c,
          info: {
            authenticated: c.info?.authenticated,
            capabilities: Object.fromEntries(
              Object.entries(c.info?.capabilities ?? {}).filter(([k]) => k !== "multi-prefix"),
            ),
          },
        })),
      },
    };
    jsonIs("web-conversation.t:67", connections, "/connections", [
      {
        connection_id: "irc-example",
        info: { authenticated: false, capabilities: {} },
        name: "example",
        on_connect_commands: [],
        service_accounts: ["chanserv", "nickserv"],
        state: "disconnected",
        url: "irc://example",
        wanted_state: "connected",
      },
      {
        connection_id: "irc-localhost",
        info: { authenticated: false, capabilities: {} },
        name: "localhost",
        on_connect_commands: [],
        service_accounts: ["chanserv", "nickserv"],
        state: "connected",
        url,
        wanted_state: "connected",
      },
    ]);
    jsonIs("web-conversation.t:92", res, "/conversations", [
      conversation("#Convos", "irc-localhost", { unread: 42 }),
      conversation("#Notified", "irc-localhost", { unread: 2, notifications: 2 }),
      conversation("#superheroes", "irc-example", { frozen: "Not connected." }),
    ]);
    jsonHasnt("web-conversation.t:127", res, "/notifications");

    res = await api.post("/api/connection/irc-localhost/conversation/%23convos/read");
    statusIs("web-conversation.t:129", res, 200);

    // web-conversation.t:133-142: five notifications, some with UTF-8 (Convos adds them to the
    // backend by hand; here Supergirl names superman).
    const texts = [
      "superman cool beans",
      "superman even with ø and å?",
      "superman not sure...",
      "superman have to wait!",
      "superman øøøøøøh!",
    ];
    for (const text of texts) await supergirl.say("#Convos", text);
    await poll(
      "five more notifications",
      async () => (await api.get("/api/notifications")).body?.messages?.length === 7,
    );
    res = await api.get("/api/notifications");
    statusIs("web-conversation.t:141", res, 200);
    is(
      "web-conversation.t:142",
      res.body?.messages?.filter((m: any) => m.conversation_id === "#convos").map((m: any) =>
        m.message
      ).sort(),
      [...texts].sort(),
      "got all notifications, including utf8: ",
    );

    // web-conversation.t:145: a channel with a dot (here on the connected connection, as a
    // conversation of a connection that is not connected cannot be joined).
    await ws.request({
      method: "send",
      connection_id: "irc-localhost",
      conversation_id: "",
      message: "/join #a.js",
    });
    await poll(
      "#a.js",
      async () => (await convs(api)).body?.conversations?.some((c: any) => c.name === "#a.js"),
    );
    res = await api.get("/api/user?connections=true&conversations=true");
    statusIs("web-conversation.t:146", res, 200);
    jsonIs("web-conversation.t:147", res, "/conversations/0/name", "#a.js");
    // LEFT OUT web-conversation.t:148-149 (html): the /chat pages of the conversations.
  } finally {
    await ws?.close();
    await supergirl?.close();
    await server.close();
    await irc.close();
  }
});
