/**
 * The server's VAPID key pair, made once and kept in the data folder (mode 0600): push services
 * tie every subscription to the public key, so a new pair would silence every browser.
 */
import { Buffer } from "node:buffer";
import { createECDH } from "node:crypto";
import { join } from "node:path";

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
 * A new P-256 pair in the form push services and `web-push` expect: the public key as the
 * 65-byte uncompressed point, the private key as 32 bytes (left-padded: a scalar with leading
 * zero bytes comes out shorter), both base64url. Made here rather than by `web-push`, which is
 * loaded only when a push is sent.
 *
 * @internal test seam
 */
export function newVapidKeys(): VapidKeys {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const priv = new Uint8Array(32);
  const scalar = ecdh.getPrivateKey();
  priv.set(scalar, 32 - scalar.length);
  return {
    publicKey: ecdh.getPublicKey().toString("base64url"),
    privateKey: Buffer.from(priv).toString("base64url"),
  };
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
  const keys = newVapidKeys();
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
