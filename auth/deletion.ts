/**
 * Deleting an account, whoever asks (the API, BouncerServ): what hangs on it first (its IRC
 * connections, its IRC clients' logins, its files: the `userDeleted` hooks), then the row with
 * everything the database keeps of it, and its open pages are told at once.
 */
import type { EventBus } from "../lib/bus.ts";
import { log } from "../lib/log.ts";
import { SESSIONS_ENDED } from "../protocol/events.ts";
import type { Store } from "../store/mod.ts";
import type { UserRecord } from "../store/users.ts";

/** Deletes `user` (the caller checked checkDeletable); `by` is the admin who asked, for the log. */
export async function deleteAccount(
  deps: {
    store: Pick<Store, "users">;
    bus: EventBus;
    userDeleted?: ((userId: number) => Promise<void>)[];
  },
  user: UserRecord,
  by: UserRecord,
): Promise<void> {
  for (const hook of deps.userDeleted ?? []) await hook(user.id);
  await deps.store.users.remove(user.id);
  // Its sessions went with the row: their sockets check theirs now.
  deps.bus.publish(user.id, SESSIONS_ENDED);
  log.info("user deleted", { uid: user.id, by: by.id });
}
