/** Free loopback ports for the servers the tests start. */

/**
 * Ports handed out in this process: a port is free again as soon as its probe closes, so two calls
 * before either server binds could get the same one.
 */
const given = new Set<number>();

/** The lowest port the kernel hands to outgoing connections and to `port: 0` (Linux's default). */
function ephemeralLow(): number {
  try {
    const [low] = Deno.readTextFileSync("/proc/sys/net/ipv4/ip_local_port_range").trim()
      .split(/\s+/).map(Number);
    if (Number.isInteger(low)) return low;
  } catch { /* why: not Linux; its usual range is assumed */ }
  return 32768;
}

/** Where probed ports are chosen: below the ephemeral range. */
const FIRST = 10_000;
const LAST = ephemeralLow() - 1;

/**
 * Ports of that range that fetch and browsers refuse to reach (the Fetch standard's "bad ports";
 * 10080 is the only one above 10,000): a server there answers no test's request.
 */
const BAD_PORTS = new Set([10080]);

/**
 * A TCP port on 127.0.0.1 that nothing listens on right now, never one given out before. Chosen at
 * random below the kernel's ephemeral range: a server binds its port only after its start, and a
 * port from that range could meanwhile become the local end of any outgoing connection (the
 * PostgreSQL pass opens hundreds), which made a server's bind fail with AddrInUse.
 */
export function freePort(): number {
  return nextPort(() => FIRST + Math.floor(Math.random() * (LAST - FIRST)));
}

/**
 * `freePort` with the candidates drawn by `draw`.
 *
 * @internal test seam
 */
export function nextPort(draw: () => number): number {
  for (let tries = 0; tries < 200 && LAST - FIRST > 1000; tries++) {
    const port = draw();
    if (given.has(port) || BAD_PORTS.has(port)) continue;
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
    } catch {
      continue; // why: taken; another is tried
    }
    given.add(port);
    return port;
  }
  // A machine whose ephemeral range leaves no room below it: the kernel's choice.
  for (let tries = 0; tries < 100; tries++) {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    if (!given.has(port) && !BAD_PORTS.has(port)) {
      given.add(port);
      return port;
    }
  }
  throw new Error("no loopback port that was not given out already");
}
