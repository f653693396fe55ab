/**
 * The IRC transport's read queue stays bounded end to end: while the consumer has MAX_BACKLOG
 * lines it has not recorded yet (PostgreSQL answering slowly), no more are handed over; the lines
 * wait in the transport's queue, and past its bound the socket pauses and the server's buffers
 * hold the rest. Nothing is lost. A real socket on loopback, read by the IRC socket thread.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { poll } from "../support/poll.ts";
import { type LineSink, LineTransport, READ_QUEUE_LINES } from "../../irc/socket/transport.ts";
import { formatMessage, type IrcMessage } from "../../irc/protocol/message.ts";

/** A consumer that takes no line itself (all go to the "line" event) and has room as `room` says. */
function sink(room: () => Promise<void> | undefined): LineSink {
  return { take: () => false, room };
}

/** A server on loopback that writes `lines` short lines to its first client, then waits for it to go. */
function lineServer(lines: number) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let written = 0;
  const done = (async () => {
    const conn = await listener.accept();
    const chunk = new TextEncoder().encode("NOTICE x :y\r\n".repeat(1000));
    try {
      // Each write resolves once the kernel took it: a paused reader stops this loop.
      while (written < lines) {
        // A write may take part of the chunk (a paused reader fills the kernel's buffers).
        for (let at = 0; at < chunk.length;) at += await conn.write(chunk.subarray(at));
        written += 1000;
      }
      await conn.read(new Uint8Array(1)); // until the client goes
    } catch { /* the test closed the connection */ }
    conn.close();
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    written: () => written,
    close: () => listener.close(),
    done,
  };
}

Deno.test("IRC transport: a consumer's backlog holds lines back, and a full queue pauses the socket", async () => {
  // Well past what the queue, the socket thread's chunks in flight and the kernel's buffers hold.
  const total = READ_QUEUE_LINES + 2_500_000;
  const server = lineServer(total);
  // The consumer is busy until released.
  let release!: () => void;
  const room = new Promise<void>((r) => release = r);
  let busy = true;
  let handed = 0;
  let full = 0;
  const transport = new LineTransport({
    host: "127.0.0.1",
    port: server.port,
  }, {
    lines: sink(() => busy ? room : undefined),
    queueFull: () => full++,
  });
  transport.on("line", () => handed++);
  try {
    transport.connect();
    // Read up to the queue's bound, then paused: the server cannot write everything.
    await poll("the read queue full", () => full === 1, 30_000);
    await new Promise((r) => setTimeout(r, 500));
    assertEquals(handed, 0, "nothing is handed over while the consumer is busy");
    assert(transport.queuedLines >= READ_QUEUE_LINES, `queued ${transport.queuedLines}`);
    assert(
      transport.queuedLines < total && server.written() < total,
      `paused: ${transport.queuedLines} queued, ${server.written()} written of ${total}`,
    );
    // The consumer catches up: every line arrives, in one piece.
    busy = false;
    release();
    await poll("every line handed over", () => handed === total, 60_000);
    assertEquals(transport.queuedLines, 0);
  } finally {
    transport.disposeSocket();
    server.close();
    await server.done;
  }
});

Deno.test("IRC transport: a server that goes silent for the idle timeout is dropped", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const served = (async () => {
    const conn = await listener.accept();
    await conn.write(new TextEncoder().encode(":irc.test NOTICE * :hello\r\n"));
    await conn.read(new Uint8Array(1)).catch(() => null); // silent until the client goes
    conn.close();
  })();
  const lines: string[] = [];
  let closed = false;
  const transport = new LineTransport({
    host: "127.0.0.1",
    port: (listener.addr as Deno.NetAddr).port,
  }, { idleTimeout: 1 });
  transport.on(
    "line",
    (m: IrcMessage) => lines.push(formatMessage(m)),
  );
  transport.on("close", () => closed = true);
  try {
    transport.connect();
    await poll("dropped after a silent second", () => closed);
    assertEquals(lines, [":irc.test NOTICE * hello"]);
  } finally {
    transport.disposeSocket();
    listener.close();
    await served;
  }
});

Deno.test("IRC transport: a PING behind a backlog is answered at once", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let answer = "";
  const served = (async () => {
    const conn = await listener.accept();
    const lines = ":n!u@h PRIVMSG #c :hello\r\n".repeat(1000) + "PING :abc123\r\n";
    await conn.write(new TextEncoder().encode(lines));
    const buf = new Uint8Array(1024);
    const decoder = new TextDecoder();
    for (;;) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) break;
      answer += decoder.decode(buf.subarray(0, n));
    }
    conn.close();
  })();
  const handed: string[] = [];
  const transport = new LineTransport({
    host: "127.0.0.1",
    port: (listener.addr as Deno.NetAddr).port,
  }, {
    lines: sink(() => new Promise<void>(() => {})), // the consumer is busy throughout
  });
  transport.on("line", (m: IrcMessage) => handed.push(m.command));
  try {
    transport.connect();
    await poll("the PONG", () => answer.includes("\n"));
    assertEquals(answer, "PONG abc123\r\n");
    assertEquals(handed.length, 0);
    assertEquals(transport.queuedLines, 1000, "the PING is not handed over again");
  } finally {
    transport.disposeSocket();
    listener.close();
    await served;
  }
});

Deno.test("IRC transport: a held queue waits for the consumer's room, then hands everything over", async () => {
  const total = 20_000;
  const server = lineServer(total);
  let release!: () => void;
  const room = new Promise<void>((r) => release = r);
  let asked = 0;
  let held = true;
  let handed = 0;
  const transport = new LineTransport({
    host: "127.0.0.1",
    port: server.port,
  }, {
    // Room once released; a held queue asks once and waits, rather than asking every few ms.
    lines: sink(() => {
      asked++;
      return held ? room : undefined;
    }),
  });
  transport.on("line", () => handed++);
  try {
    transport.connect();
    await poll("lines read and held", () => transport.queuedLines > 0, 30_000);
    await new Promise((r) => setTimeout(r, 300));
    assertEquals(handed, 0, "nothing is handed over while held");
    assert(asked <= 2, `asked ${asked} times while held`);
    held = false;
    release();
    await poll("every line handed over", () => handed === total, 30_000);
  } finally {
    transport.disposeSocket();
    server.close();
    await server.done;
  }
});

/** A server that greets, then answers a keepalive PING when `answers`; counts the PINGs. */
function keepaliveServer(answers: boolean) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const state = { pings: 0 };
  const served = (async () => {
    const conn = await listener.accept();
    const encoder = new TextEncoder();
    await conn.write(encoder.encode(":irc.test NOTICE * :hello\r\n"));
    const buf = new Uint8Array(1024);
    const decoder = new TextDecoder();
    for (;;) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) break;
      for (const line of decoder.decode(buf.subarray(0, n)).split("\r\n")) {
        if (!line.startsWith("PING ")) continue;
        state.pings++;
        if (answers) {
          await conn.write(encoder.encode(`:irc.test PONG irc.test ${line.slice(5)}\r\n`));
        }
      }
    }
    conn.close();
  })();
  return { port: (listener.addr as Deno.NetAddr).port, state, listener, served };
}

/**
 * A transport pinging after 0.2 s of silence and dropping the server after 0.6 s, against a
 * keepaliveServer that `answers` or not; `check` runs while it is connected.
 */
async function withKeepalive(
  answers: boolean,
  check: (server: ReturnType<typeof keepaliveServer>, closed: () => boolean) => Promise<void>,
) {
  const server = keepaliveServer(answers);
  let closed = false;
  const transport = new LineTransport({
    host: "127.0.0.1",
    port: server.port,
  }, { keepalive: 0.2, idleTimeout: 0.6 });
  transport.on("close", () => closed = true);
  try {
    transport.connect();
    await check(server, () => closed);
  } finally {
    transport.disposeSocket();
    server.listener.close();
    await server.served;
  }
}

Deno.test("IRC transport: a silent server is pinged once per silence and kept while it answers", async () => {
  await withKeepalive(true, async (server, closed) => {
    await poll("three silences, three pings", () => server.state.pings >= 3);
    assertEquals(closed(), false, "answered: still connected past the idle timeout");
  });
});

Deno.test("IRC transport: a server that does not answer the keepalive is dropped", async () => {
  await withKeepalive(false, async (server, closed) => {
    await poll("dropped", closed);
    assertEquals(server.state.pings, 1, "one ping for the one silence");
  });
});
