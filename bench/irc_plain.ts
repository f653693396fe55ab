/**
 * The yardstick for `irc_scale.ts`: the same registrations and joins made by plain clients (a raw
 * socket each, every line read and dropped but PING and the end of NAMES), so that what the IRC
 * server itself needs for joins into channels of hundreds is measured apart from Parley.
 */

/** Times (ms from the first connect) until every client was registered and had joined. */
interface PlainResult {
  registeredMs: number;
  joinedMs: number;
}

/**
 * Connects one client per nick to 127.0.0.1:`port` (at most `concurrency` registering at once),
 * joins each to `channelsOf(i)` in one JOIN line, and resolves once every join has ended its
 * NAMES. The sockets stay open until `close` is called, as the members of a channel would.
 */
export async function plainClients(
  port: number,
  nicks: string[],
  channelsOf: (i: number) => string[],
  concurrency = 10,
): Promise<PlainResult & { close(): void }> {
  const started = performance.now();
  const conns: Deno.TcpConn[] = [];
  let registered = 0;
  let registeredMs = 0;
  let joinedMs = 0;
  const encoder = new TextEncoder();
  let allJoined!: () => void;
  const joinedAll = new Promise<void>((r) => allJoined = r);
  let joined = 0;

  async function one(i: number, onRegistered: () => void): Promise<void> {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    conns.push(conn);
    const nick = nicks[i];
    const channels = channelsOf(i);
    let left = channels.length;
    await conn.write(encoder.encode(`NICK ${nick}\r\nUSER ${nick} 0 * :plain\r\n`));
    const decoder = new TextDecoder();
    let buf = "";
    let isRegistered = false;
    (async () => {
      try {
        for await (const chunk of conn.readable) {
          buf += decoder.decode(chunk, { stream: true });
          let nl;
          while ((nl = buf.indexOf("\n")) !== -1) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            if (line.startsWith("PING")) {
              conn.write(encoder.encode(`PONG${line.slice(4)}\n`)).catch(() => {});
            } else if (!isRegistered && line.includes(" 001 ")) {
              isRegistered = true;
              if (++registered === nicks.length) registeredMs = performance.now() - started;
              onRegistered();
              conn.write(encoder.encode(`JOIN ${channels.join(",")}\r\n`)).catch(() => {});
            } else if (left > 0 && line.includes(` 366 ${nick} `)) {
              if (--left === 0 && ++joined === nicks.length) {
                joinedMs = performance.now() - started;
                allJoined();
              }
            }
          }
        }
      } catch { /* closed */ }
    })();
  }

  // A small window of registrations in flight: ngircd's listen backlog is short, and a SYN it
  // drops is sent again only after 1, 3, 7, 15 s... (200 at once had some register after 54 s).
  let next = 0;
  await new Promise<void>((resolve) => {
    let inFlight = 0;
    const pump = () => {
      while (inFlight < concurrency && next < nicks.length) {
        const i = next++;
        inFlight++;
        let done = false;
        one(i, () => {
          if (done) return;
          done = true;
          inFlight--;
          if (next >= nicks.length && inFlight === 0) resolve();
          else pump();
        }).catch((err) => {
          console.error(`plain client ${nicks[i]}: ${err}`);
          inFlight--;
          pump();
        });
      }
    };
    pump();
  });
  await joinedAll;
  return {
    registeredMs,
    joinedMs,
    close() {
      for (const c of conns) {
        try {
          c.close();
        } catch { /* gone */ }
      }
    },
  };
}
