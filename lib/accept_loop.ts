/**
 * Accepting connections through a failed accept. Out of file descriptors (each client holds one,
 * and a few thousand idle ones suffice), `accept` fails; a loop that ended there left the port
 * bound and never served again while the process went on. Here it waits and tries again, so the
 * service comes back once the connections go.
 */
import { log } from "./log.ts";

/** The pause after a failed accept, before the next. */
const RETRY_MS = 1000;
/** What an accept says when the process (EMFILE) or the system (ENFILE) has no descriptor left. */
const OUT_OF_FILES = /too many open files|os error 2[34]\b/i;

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
      // One connection's failure (reset before it was accepted) costs nothing; a process out of
      // descriptors waits for some to be given back.
      if (!OUT_OF_FILES.test(String(err))) {
        log.debug(`${what}: a connection failed before it was accepted`, { error: String(err) });
        await new Promise((r) => setTimeout(r, 10)); // never a busy loop, whatever the error
        continue;
      }
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
    try {
      take(conn);
    } catch (err) {
      // One connection's trouble must not end the loop, which nothing would start again.
      log.error(`${what}: a connection could not be taken`, { error: String(err) });
      conn.close();
    }
  }
}
