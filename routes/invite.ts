/** Invite links: an HMAC over email, expiry and the user's current password hash. */
import type { AppDeps } from "../http/env.ts";
import { hmac } from "../lib/crypto.ts";
import { formatMicros } from "../protocol/time.ts";
import { underBaseUrl } from "../lib/base_url.ts";

/** How long an invite link stays valid. */
const INVITE_TTL_S = 24 * 3600;

/** The token of an invite; changing the password (using the invite) makes old tokens invalid. */
export function inviteToken(
  deps: AppDeps,
  email: string,
  exp: string,
  passwordHash: string,
): Promise<string> {
  return hmac(deps.config.secret, `invite:${email}:${exp}:${passwordHash}`);
}

/** Creates an invite link for `email` (new or existing user). */
export async function createInvite(deps: AppDeps, email: string) {
  const existing = await deps.store.users.byEmail(email);
  const exp = String(Math.floor(Date.now() / 1000) + INVITE_TTL_S);
  const token = await inviteToken(deps, email, exp, existing?.passwordHash ?? "");
  const url = underBaseUrl(deps.config.baseUrl, "register");
  url.search = new URLSearchParams({ email, exp, token }).toString();
  return {
    url: url.href,
    existing: Boolean(existing),
    expires: formatMicros(Number(exp) * 1_000_000),
  };
}
