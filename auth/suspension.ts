/**
 * Suspending an account and bringing it back, whoever asks (the API, BouncerServ). A suspended
 * account keeps its connections, history and settings; while suspended nobody logs in to it (web,
 * IRC clients, app tokens, uploads), its sessions are ended on every node, and its IRC connections
 * do not run. Back, the connections wanted connected connect again.
 */
import { log } from "../lib/log.ts";
import { missing } from "../lib/errors.ts";
import type { Store } from "../store/mod.ts";
import type { EventBus } from "../lib/bus.ts";
import { endSessions } from "./sessions.ts";
import type { UserRecord } from "../store/users.ts";
import type { Revocations } from "../bouncer/credentials.ts";
import type { IrcControl } from "../irc/control.ts";
import { checkSuspendable } from "../store/user_rules.ts";

/** What a suspension reaches. */
interface SuspensionDeps {
  store: Store;
  bus: EventBus;
  revocations?: Revocations;
  irc: Pick<IrcControl, "userSuspended">;
}

/**
 * Suspends `user` (or brings them back) at the request of `by`; returns the user as stored now.
 * Throws a DomainError (at `path`) when the rules refuse it: nobody suspends themselves or the
 * last admin.
 */
export async function setSuspended(
  deps: SuspensionDeps,
  user: UserRecord,
  suspended: boolean,
  by: UserRecord,
  path?: string,
): Promise<UserRecord> {
  if (suspended === user.suspended) return user;
  if (suspended) await checkSuspendable(deps.store.users, user, by, path);
  // The mark first: a login checked after it is refused, and a session let in just before it
  // is ended below (or by its next check against the store).
  const updated = await deps.store.users.update(user.id, { suspended });
  if (!updated) throw missing("No such user.");
  if (suspended) {
    await endSessions(deps, user.id);
    await deps.revocations?.revoke({ userId: user.id, kind: "suspended" });
  }
  await deps.irc.userSuspended(user.id, suspended);
  log.info(suspended ? "user suspended" : "user back from suspension", {
    uid: user.id,
    by: by.id,
  });
  return updated;
}
