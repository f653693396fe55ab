/**
 * The server's VAPID key pair, made once and kept in the data folder (mode 0600): push services
 * tie every subscription to the public key, so a new pair would silence every browser.
 */
import { join } from "node:path";
// @ts-types="./web_push.d.ts"
import webpush from "web-push";

/** A VAPID key pair as base64url strings (the public key is the uncompressed P-256 point). */
export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** The file name of the keys in the data folder. */
export const VAPID_FILE = "vapid.json";

function valid(k: unknown): k is VapidKeys {
  const v = k as VapidKeys;
  return typeof v?.publicKey === "string" && /^[\w-]{87}$/.test(v.publicKey) &&
    typeof v.privateKey === "string" && /^[\w-]{43}$/.test(v.privateKey);
}

/**
 * Reads the keys from `home`, making and saving them the first time. Synchronous: it runs once
 * while the app is built, before anything is served.
 */
export function loadVapidKeys(home: string): VapidKeys {
  const path = join(home, VAPID_FILE);
  try {
    const keys = JSON.parse(Deno.readTextFileSync(path));
    if (valid(keys)) return keys;
    throw new Error(`${path} does not hold a VAPID key pair; move it away to make a new one`);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const { publicKey, privateKey } = webpush.generateVAPIDKeys();
  const keys = { publicKey, privateKey };
  // createNew: two starting processes never overwrite each other's pair.
  try {
    Deno.writeTextFileSync(path, JSON.stringify(keys) + "\n", { createNew: true, mode: 0o600 });
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) return loadVapidKeys(home);
    throw err;
  }
  Deno.chmodSync(path, 0o600); // the umask may have narrowed less than asked
  return keys;
}
