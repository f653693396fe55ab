/**
 * What a stolen session must not do without the account's password: anything that leaves its
 * thief a way in after the victim changes the password (a new password of its own, an app token,
 * a client certificate). The password counts when given with the request (`current_password`) or
 * when this session was opened with it within RECENT_PASSWORD_MS, as GitHub's sudo mode.
 */
import type { Context } from "hono";
import { verifyPassword } from "../lib/password.ts";
import type { UserRecord } from "../store/users.ts";
import type { AppDeps, AppEnv } from "./env.ts";
import { badRequest } from "./errors.ts";
import { RECENT_PASSWORD_MS, sessionPasswordAt, wallNow } from "./session.ts";

/** Where the API takes the password: the body's `current_password`. */
const CURRENT_PASSWORD_PATH = "/body/current_password";

/** Whether this session was opened with the password within RECENT_PASSWORD_MS. */
export async function passwordRecent(c: Context<AppEnv>, deps: AppDeps): Promise<boolean> {
  const givenAt = await sessionPasswordAt(c, deps);
  return givenAt > 0 && wallNow(deps) - givenAt <= RECENT_PASSWORD_MS;
}

/**
 * Throws a 400 at CURRENT_PASSWORD_PATH unless `user`'s password is given (`current`) or recent
 * in this session; `need` says what it is for ("Enter your current password to {need}.").
 */
export async function confirmPassword(
  c: Context<AppEnv>,
  deps: AppDeps,
  user: UserRecord,
  current: string | undefined,
  need: string,
): Promise<void> {
  if (current) {
    if (await verifyPassword(user.passwordHash, current)) return;
    throw badRequest("The current password is wrong.", CURRENT_PASSWORD_PATH);
  }
  if (await passwordRecent(c, deps)) return;
  throw badRequest(`Enter your current password to ${need}.`, CURRENT_PASSWORD_PATH);
}
