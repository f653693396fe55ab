import { assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { EventSocket } from "../support/events.ts";
import { startServer } from "../support/server.ts";

Deno.test("events: a shutdown says so and closes open sockets with 1001", async () => {
  const server = await startServer();
  try {
    const api = new ApiClient(server.url);
    await api.register("admin@example.com");
    const socket = await EventSocket.open(api);
    await socket.waitFor((e) => e.event === "handshake" && !e.errors);
    assertEquals(await server.stop(), 0);
    const closed = await socket.closed;
    assertEquals(closed.code, 1001);
    assertEquals(socket.events.at(-1).event, "shutdown");
  } finally {
    await server.close();
  }
});
