/**
 * Ending a user's web sessions, whoever ends them (a new password, a suspension): the rows go, and
 * their open sockets, on every node, are told to check their own session at once.
 */
import type { EventBus } from "../lib/bus.ts";
import { SESSIONS_ENDED } from "../protocol/events.ts";
import type { Store } from "../store/mod.ts";

/** Ends every web session of `userId`. */
export async function endSessions(
  deps: { store: Pick<Store, "sessions">; bus: EventBus },
  userId: number,
): Promise<void> {
  await deps.store.sessions.removeForUser(userId);
  deps.bus.publish(userId, SESSIONS_ENDED);
}
