/**
 * What one user may hold on /events: a bounded number of requests being answered at once on a
 * socket (past it a request is refused at once with an error, and a ping still gets its pong;
 * sends that wait behind flood control, production pacing and a real ngircd, hold the places), a
 * bounded number of open sockets (past it a new one is closed before its handshake), and frames of
 * a bounded length (a longer one is not read; its socket is closed).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startApp } from "../support/app.ts";
import { EventSocket } from "../support/events.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import {
  MAX_ANSWERING,
  MAX_FRAME_CHARS,
  MAX_SOCKETS_PER_USER,
  TRY_AGAIN_LATER,
} from "../../routes/events.ts";

Deno.test("events: requests past the bound at once are refused; pings answered", async () => {
  const irc = await startIrcServer();
  const a = await startApp();
  const server = await a.listen();
  const bob = await RawIrcClient.connect(irc.port, "bob");
  let socket: EventSocket | undefined;
  try {
    const api = new ApiClient(`http://127.0.0.1:${server.port}`);
    await api.register("busy@example.com");
    await bob.join("#busy");
    const made = await api.post("/api/connections", {
      url: `${irc.url}?nick=busy`,
      conversation_id: "#busy",
    });
    await bob.waitFor((l) => l.command === "JOIN" && l.nick === "busy");
    socket = await EventSocket.open(api);
    await socket.waitFor((e) => e.event === "handshake" && !e.errors);

    // The first few lines go out at once (the burst); the rest wait 2 s apiece.
    const total = MAX_ANSWERING + 20;
    for (let id = 1; id <= total; id++) {
      socket.ws.send(JSON.stringify({
        method: "send",
        id,
        connection_id: made.body.connection_id,
        conversation_id: "#busy",
        message: `line ${id}`,
      }));
    }
    socket.ws.send(JSON.stringify({ method: "ping", id: "still there?" }));
    const pong = await socket.waitFor((e) => e.id === "still there?");
    assertEquals(pong.event, "pong");
    const refused = () => socket!.events.filter((e) => e.event === "sent" && e.errors);
    await poll("the refusals", () => refused().length >= 10);
    assertEquals(refused()[0].conversation_id, "#busy", "answered as a send is");
    assertEquals(refused()[0].errors, [{
      message: "Too many requests at once: wait for their answers.",
      path: "/",
    }]);
    const sent = socket.events.filter((e) => e.event === "sent" && !e.errors).length;
    assert(sent <= 10, `${sent} sent`);
    assert(refused().length <= 20, `${refused().length} refused`);
  } finally {
    socket?.ws.close();
    await bob.close();
    await server.stop();
    await a.close();
    await irc.close();
  }
});

Deno.test("events: past the bound of open sockets a new one is closed before its handshake", async () => {
  const a = await startApp();
  const server = await a.listen();
  const sockets: EventSocket[] = [];
  try {
    const api = new ApiClient(`http://127.0.0.1:${server.port}`);
    await api.register("tabs@example.com");
    for (let i = 0; i < MAX_SOCKETS_PER_USER; i++) sockets.push(await EventSocket.open(api));
    await Promise.all(sockets.map((s) => s.waitFor((e) => e.event === "handshake" && !e.errors)));
    const extra = await EventSocket.open(api);
    sockets.push(extra);
    let done: CloseEvent | undefined;
    extra.closed.then((c) => done = c);
    const closed = await poll("the socket past the bound closed", () => done, 10_000);
    sockets.pop();
    assertEquals([closed.code, closed.reason], [
      TRY_AGAIN_LATER,
      "Too many open sockets: close some tabs.",
    ]);
    assertEquals(extra.events, [], "no handshake: the web client tries again later");
    // Once one closes, a new one is let in.
    const uid = (await a.deps.store.users.byEmail("tabs@example.com"))!.id;
    sockets.shift()!.ws.close();
    await poll("a place free", () => a.deps.bus.listenerCount(uid) < MAX_SOCKETS_PER_USER);
    const next = await EventSocket.open(api);
    sockets.push(next);
    await next.waitFor((e) => e.event === "handshake" && !e.errors);
  } finally {
    for (const s of sockets) s.ws.close();
    await Promise.all(sockets.map((s) => s.closed));
    await server.stop();
    await a.close();
  }
});

Deno.test("events: a frame over the bound is not read, and its socket is closed with 1009", async () => {
  const a = await startApp();
  const server = await a.listen();
  try {
    const api = new ApiClient(`http://127.0.0.1:${server.port}`);
    await api.register("paste@example.com");
    const socket = await EventSocket.open(api);
    await socket.waitFor((e) => e.event === "handshake" && !e.errors);
    // Just under the bound: read and answered.
    const frame = (pad: number) =>
      JSON.stringify({ method: "ping", id: `p${pad}`, pad: "x".repeat(pad) });
    const under = frame(MAX_FRAME_CHARS - 100);
    assert(under.length <= MAX_FRAME_CHARS);
    socket.ws.send(under);
    assertEquals((await socket.waitFor((e) => e.id === `p${MAX_FRAME_CHARS - 100}`)).event, "pong");
    socket.ws.send(frame(MAX_FRAME_CHARS));
    let done: CloseEvent | undefined;
    socket.closed.then((c) => done = c);
    const closed = await poll("closed", () => done, 10_000);
    assertEquals(closed.code, 1009);
    assertEquals(socket.events.at(-1), {
      event: "error",
      errors: [{ message: "A frame is at most 1 MiB: send long text as a file.", path: "/" }],
    });
  } finally {
    await server.stop();
    await a.close();
  }
});
