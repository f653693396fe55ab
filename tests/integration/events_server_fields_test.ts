/**
 * What the bus carries for the server alone stays there: a `message` event's `origin` (a sender's
 * token) and `to` (whom a line kept in the server's conversation was said to) never reach a socket.
 */
import { assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startApp } from "../support/app.ts";
import { EventSocket } from "../support/events.ts";
import type { BusMessageEvent } from "../../protocol/events.ts";

Deno.test("events: a message's server-only fields are not sent on a socket", async () => {
  const a = await startApp();
  const server = await a.listen();
  let socket: EventSocket | undefined;
  try {
    const api = new ApiClient(`http://127.0.0.1:${server.port}`);
    await api.register("fields@example.com");
    socket = await EventSocket.open(api);
    await socket.waitFor((e) => e.event === "handshake");
    const uid = (await a.deps.store.users.byEmail("fields@example.com"))!.id;
    const ev: BusMessageEvent = {
      event: "message",
      connection_id: "irc-localhost",
      conversation_id: "",
      from: "fields",
      message: "identify s3cret",
      ts: "2026-11-30T12:00:00.000000Z",
      type: "private",
      highlight: false,
      msgid: "m1",
      origin: "pe1",
      to: "NickServ",
    };
    a.deps.bus.publish(uid, ev);
    const got = await socket.waitFor((e) => e.event === "message");
    const { origin: _origin, to: _to, ...shown } = ev;
    assertEquals(got, shown);
  } finally {
    await socket?.close();
    await server.stop();
    await a.close();
  }
});
