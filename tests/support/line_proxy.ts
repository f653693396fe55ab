/**
 * A TCP proxy on loopback that passes bytes both ways unchanged and keeps the lines its clients
 * sent: what Parley wrote to an IRC server, where the server's answers do not show it (a nick
 * regain refused each time).
 */
export interface LineProxy {
  port: number;
  /** Lines the proxy's clients sent, in order, without their line ends. */
  sent: string[];
  close(): Promise<void>;
}

function close(c: Deno.Conn): void {
  try {
    c.close();
  } catch {
    // why: already closed by its peer's end
  }
}

/** Starts a proxy to `127.0.0.1:target`. */
export function lineProxy(target: number): LineProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const sent: string[] = [];
  const open = new Set<Deno.Conn>();
  const piping: Promise<void>[] = [];
  const decoder = new TextDecoder();
  const pipe = async (from: Deno.Conn, to: Deno.Conn, keep: boolean) => {
    let rest = "";
    const buf = new Uint8Array(16 * 1024);
    try {
      for (let n = await from.read(buf); n !== null; n = await from.read(buf)) {
        const chunk = buf.subarray(0, n);
        if (keep) {
          const lines = (rest + decoder.decode(chunk, { stream: true })).split(/\r?\n/);
          rest = lines.pop()!;
          sent.push(...lines);
        }
        await to.write(chunk);
      }
    } catch {
      // why: either side closing ends the pair; the other is closed below.
    }
    for (const c of [from, to]) {
      if (open.delete(c)) close(c);
    }
  };
  const accepting = (async () => {
    for await (const client of listener) {
      const server = await Deno.connect({ hostname: "127.0.0.1", port: target });
      open.add(client);
      open.add(server);
      piping.push(pipe(client, server, true), pipe(server, client, false));
    }
  })().catch(() => {}); // why: ends when the listener is closed
  return {
    port: (listener.addr as Deno.NetAddr).port,
    sent,
    async close() {
      listener.close();
      for (const c of open) close(c);
      open.clear();
      await accepting;
      await Promise.all(piping);
    },
  };
}
