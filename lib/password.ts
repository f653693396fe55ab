/** Password hashing with argon2id (hashed off the main thread by @node-rs/argon2). */
import { lazy } from "./lazy.ts";

/** The argon2 native library, loaded for the first login, registration or password change. */
const argon2 = lazy(() => import("@node-rs/argon2"));

// A hash of a random password, verified against when the user does not exist, so that
// a login for an unknown email takes as long as one for a known email.
let decoy: Promise<string> | undefined;

/** Hashes a password with argon2id. */
export async function hashPassword(password: string): Promise<string> {
  return (await argon2()).hash(password, { algorithm: 2 });
}

/** Checks a password against a stored hash; with no hash it spends the same time and fails. */
export async function verifyPassword(
  stored: string | undefined,
  password: string,
): Promise<boolean> {
  if (!stored) {
    decoy ??= hashPassword(crypto.randomUUID());
    await (await argon2()).verify(await decoy, password).catch(() => false);
    return false;
  }
  try {
    return await (await argon2()).verify(stored, password);
  } catch {
    return false;
  }
}
