/** Free loopback ports for the servers the tests start. */

/**
 * Ports handed out in this process: a port is free again as soon as its probe closes, so two calls
 * before either server binds could get the same one (the kernel reuses a just-closed port).
 */
const given = new Set<number>();

/** A TCP port on 127.0.0.1 that nothing listens on right now, never one given out before. */
export function freePort(): number {
  for (let tries = 0; tries < 100; tries++) {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    if (!given.has(port)) {
      given.add(port);
      return port;
    }
  }
  throw new Error("no loopback port that was not given out already");
}
