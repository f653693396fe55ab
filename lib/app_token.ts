/**
 * App tokens: random passwords for IRC clients. Long and random, so a SHA-256 hash is enough to
 * keep (no slow hash needed, unlike a password a person chose).
 */
import { randomId, sha256Hex } from "./crypto.ts";

/** Every token starts so, telling it from a password a person chose. */
const PREFIX = "parley-";

/** A new token and the hash to store. */
export async function newAppToken(): Promise<{ token: string; hash: string }> {
  const token = PREFIX + randomId(24);
  return { token, hash: await sha256Hex(token) };
}

/** Whether a password looks like a token (then its hash is looked up). */
export function looksLikeAppToken(password: string): boolean {
  return password.startsWith(PREFIX) && password.length < 100;
}

/** The hash a token is stored as. */
export const appTokenHash = (token: string) => sha256Hex(token);
