/**
 * One /events socket has a bounded number of requests being answered at once: past it a request
 * is refused at once with an error, and a ping still gets its pong. Sends that wait behind flood
 * control (production pacing, a real ngircd) hold the places.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startApp } from "../support/app.ts";
import { EventSocket } from "../support/events.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { MAX_ANSWERING } from "../../routes/events.ts";

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
