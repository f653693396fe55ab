/**
 * Accepting connections through a failed accept. Out of file descriptors (each client holds one,
 * and a few thousand idle ones suffice), `accept` fails; a loop that ended there left the port
 * bound and never served again while the process went on. Here it waits and tries again, so the
 * service comes back once the connections go.
 */
import { log } from "./log.ts";

/** The pause after a failed accept, before the next. */
const RETRY_MS = 1000;

/**
 * Hands each connection of `listener` to `take` until `closed()`; `what` names the listener in
 * the log (one warning per run of failures, one line when it accepts again).
 */
export async function acceptLoop(
  listener: Deno.Listener,
  take: (conn: Deno.Conn) => void,
  closed: () => boolean,
  what: string,
): Promise<void> {
  let failing = false;
  while (!closed()) {
    let conn: Deno.Conn;
    try {
      conn = await listener.accept();
    } catch (err) {
      if (closed() || err instanceof Deno.errors.BadResource) return;
      if (!failing) {
        log.warn(`${what} cannot accept connections; trying again every second`, {
          error: String(err),
        });
      }
      failing = true;
      await new Promise((r) => setTimeout(r, RETRY_MS));
      continue;
    }
    if (failing) log.info(`${what} accepts connections again`);
    failing = false;
    take(conn);
  }
}
