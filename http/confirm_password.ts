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

/** Whether a password given at `givenAt` (0: never) is recent enough. */
const recent = (deps: AppDeps, givenAt: number) =>
  givenAt > 0 && wallNow(deps) - givenAt <= RECENT_PASSWORD_MS;

/** Whether this session was opened with the password within RECENT_PASSWORD_MS. */
export async function passwordRecent(c: Context<AppEnv>, deps: AppDeps): Promise<boolean> {
  return recent(deps, await sessionPasswordAt(c, deps));
}

/**
 * Throws a 400 at CURRENT_PASSWORD_PATH unless `user`'s password is given (`current`) or recent
 * in this session; `need` says what it is for ("Enter your current password to {need}."). Returns
 * when the password was last given (now, when it came with the request), which a new session
 * keeps.
 */
export async function confirmPassword(
  c: Context<AppEnv>,
  deps: AppDeps,
  user: UserRecord,
  current: string | undefined,
  need: string,
): Promise<number> {
  if (current) {
    if (await verifyPassword(user.passwordHash, current)) return wallNow(deps);
    throw badRequest("The current password is wrong.", CURRENT_PASSWORD_PATH);
  }
  const givenAt = await sessionPasswordAt(c, deps);
  if (recent(deps, givenAt)) return givenAt;
  throw badRequest(`Enter your current password to ${need}.`, CURRENT_PASSWORD_PATH);
}
