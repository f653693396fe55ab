// deno-lint-ignore-file no-explicit-any -- events are read field by field
/** Convos 8.07 t/web-irc-events.t ported: the /events socket with a live IRC connection. */
import { check, compatServer, is, jsonIs, jsonLike, statusIs, within } from "../support/compat.ts";
import type { ApiResponse } from "../support/api.ts";
import { EventSocket } from "../support/events.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";

/** An event as a response, so the JSON pointer checks read it as Test::Mojo's json_message_*. */
const msg = (e: unknown): ApiResponse => ({ status: 200, body: e, headers: new Headers() });

Deno.test("web-irc-events.t", async (t) => {
  const irc = await startIrcServer();
  // web-irc-events.t:8 (admin only because Parley lets admins reach loopback IRC servers freely).
  const server = await compatServer({
    irc: true,
    seed: { users: [{ email: "superman@example.com", password: "s3cret", roles: ["admin"] }] },
  });
  const api = server.client();
  let ws: EventSocket | undefined;
  let superduper: RawIrcClient | undefined;
  try {
    await t.step("handshake without a login", async () => {
      const anon = await EventSocket.open(server.client());
      const hs = msg(await within(5000, anon.waitFor((e) => e.event === "handshake")));
      jsonIs("web-irc-events.t:13", hs, "/errors/0/message", "Need to log in first.");
      jsonIs("web-irc-events.t:14", hs, "/event", "handshake");
      await anon.close();
    });

    await t.step("connect", async () => {
      const login = await api.post("/api/user/login", {
        email: "superman@example.com",
        password: "s3cret",
      });
      statusIs("web-irc-events.t:18", login, 200);
      ws = await EventSocket.open(api);
      await ws.waitFor((e) => e.event === "handshake");
      // web-irc-events.t:22: the connection irc-localhost.
      const made = await api.post("/api/connections", {
        url: `irc://127.0.0.1:${irc.port}?nick=superman`,
      });
      if (made.status !== 200) throw new Error(JSON.stringify(made.body));
      await ws.waitFor((e) => e.event === "state" && e.state === "connected").catch(() => {});
      await within(3000, ws.waitFor((e) => /Welcome/.test(e.message ?? "")));
      // 002-004 follow the welcome in their own lines; wait (bounded) until they are here too
      // before the order is read, so a busy machine does not cut the list short.
      const threeAfterWelcome = () => {
        const mine = ws!.events.filter((e) => e.connection_id === "irc-localhost");
        const w = mine.findIndex((e) => e.event === "message" && /Welcome/.test(e.message ?? ""));
        return w >= 0 && mine.slice(w + 1).filter((e) => e.event === "message").length >= 3;
      };
      await ws.waitFor(threeAfterWelcome, 5000).catch(() => {});
      // web-irc-events.t:29-44: Convos pins the order of the first events of a connection. Here
      // each must come after the one before it (other events may come between).
      const events = ws.events.filter((e) => e.connection_id === "irc-localhost");
      const steps: [string, (e: any) => boolean][] = [
        [
          "web-irc-events.t:29-31",
          (e) => e.state === "connecting" && /Connecting to/.test(e.message),
        ],
        [
          "web-irc-events.t:32-34",
          (e) => e.type === "notice" && /Connecting to/.test(e.message),
        ],
        ["web-irc-events.t:35", (e) => e.type === "info"],
        [
          "web-irc-events.t:36-38",
          (e) => e.state === "connected" && /Connected to/.test(e.message),
        ],
        [
          "web-irc-events.t:39-41",
          (e) => e.type === "notice" && /Connected to/.test(e.message),
        ],
        // Convos's test server greets with "Looking up your hostname"; ngircd starts with 001.
        ["web-irc-events.t:42-43", (e) => e.event === "message" && /Welcome to/.test(e.message)],
      ];
      let from = 0;
      for (const [where, test] of steps) {
        const i = events.findIndex((e, n) => n >= from && test(e));
        const step = () =>
          check(where, () => {
            if (i < 0) {
              throw new Error(
                `no such event after #${from}; events: ${
                  JSON.stringify(
                    events.map((e) => [e.event, e.type, e.state, e.message?.slice(0, 30)]),
                  ).slice(0, 1500)
                }`,
              );
            }
          });
        step();
        if (i >= 0) from = i + 1;
      }
      // web-irc-events.t:44: three more server messages follow (002-004 from ngircd).
      const more = events.slice(from).filter((e) => e.event === "message");
      check("web-irc-events.t:44", () => {
        if (more.length < 3) throw new Error(`expected 3 more messages, got ${more.length}`);
      });
    });

    await t.step("debug", async () => {
      ws!.ws.send(JSON.stringify({ method: "debug", what: "ever" }));
      const ev = await within(3000, ws!.waitFor((e) => e.event === "debug" || e.event === "error"));
      jsonIs("web-irc-events.t:51", msg(ev), "/event", "debug");
    });

    await t.step("ping", async () => {
      ws!.ws.send(JSON.stringify({ method: "ping" }));
      const ev = await within(3000, ws!.waitFor((e) => e.event === "pong"));
      jsonIs("web-irc-events.t:57", msg(ev), "/event", "pong");
      jsonLike("web-irc-events.t:58", msg(ev), "/ts", /^\d+/);
    });

    const send: Record<string, string> = { method: "send" };
    const sent = async () => {
      const n = ws!.events.length;
      ws!.ws.send(JSON.stringify(send));
      return msg(
        await within(5000, ws!.waitFor((e) => e.event === "sent" && ws!.events.indexOf(e) >= n)),
      );
    };

    await t.step("send - invalid input", async () => {
      const res = await sent();
      jsonLike("web-irc-events.t:65", res, "/id", /^\d+/);
      jsonIs("web-irc-events.t:66", res, "/event", "sent");
      jsonIs("web-irc-events.t:67", res, "/errors/0/message", "Invalid input.");
    });

    await t.step("send - no connection", async () => {
      send.connection_id = "irc-whatever";
      send.message = "/kick superduper";
      const res = await sent();
      jsonLike("web-irc-events.t:75", res, "/id", /^\d+/);
      jsonIs("web-irc-events.t:76", res, "/event", "sent");
      jsonIs("web-irc-events.t:77", res, "/errors/0/message", "Connection not found.");
    });

    await t.step("send - no target", async () => {
      send.connection_id = "irc-localhost";
      const res = await sent();
      jsonLike("web-irc-events.t:84", res, "/id", /^\d+/);
      jsonIs("web-irc-events.t:85", res, "/event", "sent");
      jsonIs("web-irc-events.t:86", res, "/errors/0/message", "Cannot send without target.");
    });

    await t.step("send - kick", async () => {
      // web-irc-events.t:95: Convos's test server writes the KICK itself. Here superman is in
      // #convos first (so an operator) and superduper is there too; the reason is sent with the
      // command, as a real server only knows the reason it is given.
      const join = await ws!.request({
        method: "send",
        connection_id: "irc-localhost",
        conversation_id: "",
        message: "/join #convos",
      });
      if (join.errors) throw new Error(JSON.stringify(join));
      await ws!.waitFor((e) => e.conversation_id === "#convos");
      superduper = await RawIrcClient.connect(irc.port, "superduper");
      // The answer to /join says it was sent, not that the server took it: superduper asks the
      // server (NAMES, from outside the channel) until superman is in, and only then joins.
      await superduper.waitForMember("#convos", "superman");
      await superduper.join("#convos");
      send.conversation_id = "#convos";
      send.id = "42";
      send.message = "/kick superduper So long...";
      const n = ws!.events.length;
      ws!.ws.send(JSON.stringify(send));
      const kick = msg(
        await within(
          5000,
          ws!.waitFor((e) =>
            e.event === "state" && e.nick === "superduper" && e.type !== "join" &&
            ws!.events.indexOf(e) >= n
          ),
        ),
      );
      jsonIs("web-irc-events.t:96", kick, "/connection_id", "irc-localhost");
      jsonIs("web-irc-events.t:97", kick, "/conversation_id", "#convos");
      jsonIs("web-irc-events.t:97", kick, "/event", "state");
      jsonIs("web-irc-events.t:98", kick, "/kicker", "superman");
      jsonIs("web-irc-events.t:98", kick, "/message", "So long...");
      jsonIs("web-irc-events.t:99", kick, "/nick", "superduper");
      jsonIs("web-irc-events.t:99", kick, "/type", "part");
      jsonLike("web-irc-events.t:100", kick, "/ts", /^\d+-\d+-\d+/);

      const res = msg(await within(5000, ws!.waitFor((e) => e.event === "sent" && e.id === "42")));
      jsonIs("web-irc-events.t:106", res, "/connection_id", "irc-localhost");
      jsonIs("web-irc-events.t:107", res, "/conversation_id", "#convos");
      jsonIs("web-irc-events.t:107", res, "/event", "sent");
      jsonIs("web-irc-events.t:108", res, "/id", "42");
      jsonIs("web-irc-events.t:108", res, "/message", "/kick superduper So long...");
      jsonIs("web-irc-events.t:109", res, "/method", "send");
      is("web-irc-events.t:109", typeof res.body?.id, "string", "id type: ");
    });
  } finally {
    await ws?.close();
    await superduper?.close();
    await server.close();
    await irc.close();
  }
});
