/**
 * What keeps a server usable, whoever changes its accounts (the API, BouncerServ, `parley user`):
 * it always has an admin who can log in, and at least one person (with none, the next visitor to
 * /register would become the admin). Each refusal is a DomainError with the words the API answers, at the pointer
 * its caller gives (the API's `/body/roles`; nothing for BouncerServ and the command line).
 */
import { invalid } from "../lib/errors.ts";
import type { UserRecord, UserStore } from "./users.ts";

/** Whether `user` is the one admin not suspended (a suspended admin cannot log in to act). */
async function isLastAdmin(users: UserStore, user: UserRecord): Promise<boolean> {
  if (!user.roles.includes("admin") || user.suspended) return false;
  return (await users.withRole("admin")).filter((u) => !u.suspended).length === 1;
}

/** Refuses to give `user` the roles `roles` when that would leave no admin. */
export async function checkRoles(
  users: UserStore,
  user: UserRecord,
  roles: string[],
  path?: string,
): Promise<void> {
  if (!roles.includes("admin") && await isLastAdmin(users, user)) {
    throw invalid("The last admin cannot give up the admin role.", path);
  }
}

/** Refuses to delete `user` when they are the only person left, or the last admin. */
export async function checkDeletable(
  users: UserStore,
  user: UserRecord,
  path?: string,
): Promise<void> {
  if ((await users.countPeople()) <= 1) throw invalid("You are the only user left.");
  if (await isLastAdmin(users, user)) throw invalid("The last admin cannot be deleted.", path);
}

/** Refuses to suspend `user` when `by` (absent: the shell) is them, or they are the last admin. */
export async function checkSuspendable(
  users: UserStore,
  user: UserRecord,
  by: UserRecord | undefined,
  path?: string,
): Promise<void> {
  if (user.id === by?.id) throw invalid("You cannot suspend yourself.", path);
  if (await isLastAdmin(users, user)) throw invalid("The last admin cannot be suspended.", path);
}
