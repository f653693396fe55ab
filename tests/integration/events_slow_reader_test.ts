/**
 * An /events client that stops reading is closed once its buffer is full, not buffered for
 * without end: a real socket, since only it shows what the server holds back.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { MAX_BUFFERED, TRY_AGAIN_LATER } from "../../routes/events.ts";
import { poll } from "../support/poll.ts";

/** Reads server frames (unmasked) from `bytes`; returns the close frame's code, if one came. */
function closeCode(bytes: Uint8Array): number | undefined {
  let at = 0;
  while (at + 2 <= bytes.length) {
    const opcode = bytes[at] & 0x0f;
    let len = bytes[at + 1] & 0x7f;
    let head = 2;
    if (len === 126) {
      len = (bytes[at + 2] << 8) | bytes[at + 3];
      head = 4;
    } else if (len === 127) {
      len = Number(new DataView(bytes.buffer, bytes.byteOffset + at + 2, 8).getBigUint64(0));
      head = 10;
    }
    if (at + head + len > bytes.length) return undefined;
    if (opcode === 8) return (bytes[at + head] << 8) | bytes[at + head + 1];
    at += head + len;
  }
  return undefined;
}

Deno.test("events: an /events client that stops reading is closed, not buffered for", async () => {
  const a = await startApp();
  const server = await a.listen();
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  try {
    const cookie = await a.register("admin@example.com");
    const uid = (await a.deps.store.users.byEmail("admin@example.com"))!.id;
    await conn.write(new TextEncoder().encode([
      "GET /events HTTP/1.1",
      `Host: 127.0.0.1:${server.port}`,
      "Upgrade: websocket",
      "Connection: Upgrade",
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      "Sec-WebSocket-Version: 13",
      `Cookie: ${cookie}`,
      "",
      "",
    ].join("\r\n")));
    await poll("the socket's subscription", () => a.deps.bus.listenerCount(uid) === 1);
    // The client reads nothing from here on while 40 MB of events are published.
    const text = "x".repeat(64 * 1024);
    for (let i = 0; i < 640 && a.deps.bus.listenerCount(uid) > 0; i++) {
      a.deps.bus.publish(uid, {
        event: "message",
        connection_id: "irc-x",
        conversation_id: "#x",
        from: "bob",
        message: text,
        ts: "2026-11-22T10:00:00.000000Z",
        type: "private",
        highlight: false,
        msgid: "1.1",
      });
      if (i % 8 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    await poll("the slow socket's unsubscription", () => a.deps.bus.listenerCount(uid) === 0);
    // Now read what was sent: a bounded amount, ending with a 1013 close.
    let received = new Uint8Array(0);
    const buf = new Uint8Array(256 * 1024);
    let code: number | undefined;
    while (code === undefined) {
      const n = await conn.read(buf);
      if (n === null) break;
      const next = new Uint8Array(received.length + n);
      next.set(received);
      next.set(buf.subarray(0, n), received.length);
      received = next;
      if (n < buf.length) {
        // Frames start after the 101 answer's blank line.
        const head = new TextDecoder().decode(received.subarray(0, 1024)).indexOf("\r\n\r\n");
        code = closeCode(received.subarray(head + 4));
      }
    }
    const total = received.length;
    console.log(`events: stalled consumer received ${total} bytes of 40 MB published`);
    assertEquals(code, TRY_AGAIN_LATER);
    assert(total < MAX_BUFFERED + 12 * 1024 * 1024, `received ${total} bytes of 40 MB`);
  } finally {
    conn.close();
    await server.stop();
    await a.close();
  }
});
