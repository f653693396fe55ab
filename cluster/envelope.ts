/**
 * The envelope every message between nodes travels in. Any role that may connect to the database
 * can LISTEN and NOTIFY on any channel, so a node believes only what the nodes' shared secret
 * signed, and says nothing a listener could read:
 *
 *     p1.<ms>.<epoch>.<nonce>.<kind>.<data>.<mac>
 *
 * - `ms`: when it was sealed (ms since 1970); older or newer than WINDOW_MS by the receiver's
 *   clock, it is refused, and within that window each nonce is accepted once (no replays);
 * - `epoch`: random per sender process; the message is encrypted (AES-256-GCM) under a key derived
 *   from the secret and the epoch, so no one key encrypts more than a process sends;
 * - `nonce`: random, the cipher's IV and the replay check's key;
 * - `kind` `i` and `data` the ciphertext (base64url), or `r` and the id of a `cluster_payloads`
 *   row holding it (a NOTIFY payload is at most 8000 bytes);
 * - `mac`: HMAC-SHA256 over the channel's name and every field before it, under a key derived
 *   from the secret. The channel is in it, so an envelope cannot be replayed on another channel;
 *   the ciphertext's own tag binds it to the same fields, so a stored one cannot be swapped.
 */
import { base64url } from "../lib/crypto.ts";

/** How far an envelope's time may be from the receiver's clock (ms). */
export const WINDOW_MS = 60_000;

const VERSION = "p1";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function fromBase64url(s: string): Uint8Array {
  const b64 = s.replaceAll("-", "+").replaceAll("_", "/");
  const bin = atob(b64 + "=".repeat((4 - b64.length % 4) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

async function hkdf(secret: CryptoKey, salt: Uint8Array, info: string, usage: "mac" | "enc") {
  return await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: salt as BufferSource, info: encoder.encode(info) },
    secret,
    usage === "mac" ? { name: "HMAC", hash: "SHA-256", length: 256 } : {
      name: "AES-GCM",
      length: 256,
    },
    false,
    usage === "mac" ? ["sign", "verify"] : ["encrypt", "decrypt"],
  );
}

/** Why an envelope was refused (for the log; never its contents). */
export type Refusal = "malformed" | "bad mac" | "too old or too new" | "replayed" | "undecryptable";

/** A sealed message: its inline envelope, and what a reference to it needs when that is too large. */
export interface Sealed {
  /** The fields before the kind (what `reference` signs again). */
  header: string;
  /** The ciphertext (base64url). */
  ciphertext: string;
  /** The whole inline envelope. */
  inline: string;
}

/** What an accepted envelope holds: the JSON text, or the row id to read the ciphertext from. */
export type Opened = { json: string } | { ref: number; header: string };

/** The keys the nodes derive from their shared secret. */
export class ClusterKeys {
  #secret: CryptoKey;
  #mac: CryptoKey;
  #epoch = base64url(crypto.getRandomValues(new Uint8Array(16)));
  #own: Promise<CryptoKey>;
  /** Other senders' keys by epoch, most recent last (only authenticated epochs get here). */
  #epochs = new Map<string, Promise<CryptoKey>>();

  private constructor(secret: CryptoKey, mac: CryptoKey) {
    this.#secret = secret;
    this.#mac = mac;
    this.#own = this.#keyOf(this.#epoch);
  }

  /** Derives the keys from the secret every node is configured with. */
  static async derive(secret: string): Promise<ClusterKeys> {
    const ikm = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, [
      "deriveKey",
    ]);
    return new ClusterKeys(ikm, await hkdf(ikm, new Uint8Array(), "parley cluster mac", "mac"));
  }

  #keyOf(epoch: string): Promise<CryptoKey> {
    let key = this.#epochs.get(epoch);
    if (key) {
      this.#epochs.delete(epoch);
    } else {
      key = hkdf(this.#secret, fromBase64url(epoch), "parley cluster encryption", "enc");
      // A handful of nodes, each with a new epoch per start: 64 is plenty.
      if (this.#epochs.size >= 64) this.#epochs.delete(this.#epochs.keys().next().value!);
    }
    this.#epochs.set(epoch, key);
    return key;
  }

  async #sign(channel: string, signed: string): Promise<string> {
    const bytes = await crypto.subtle.sign(
      "HMAC",
      this.#mac,
      encoder.encode(`${channel}\n${signed}`),
    );
    return base64url(new Uint8Array(bytes));
  }

  /** Seals `json` for `channel`, at `now` (ms). */
  async seal(channel: string, json: string, now = Date.now()): Promise<Sealed> {
    const nonce = crypto.getRandomValues(new Uint8Array(12));
    const header = `${VERSION}.${now}.${this.#epoch}.${base64url(nonce)}`;
    const sealed = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv: nonce, additionalData: encoder.encode(`${channel}\n${header}`) },
      await this.#own,
      encoder.encode(json),
    );
    const ciphertext = base64url(new Uint8Array(sealed));
    const signed = `${header}.i.${ciphertext}`;
    return { header, ciphertext, inline: `${signed}.${await this.#sign(channel, signed)}` };
  }

  /** The envelope that points at a stored ciphertext (row `id`) sealed with `header`. */
  async reference(channel: string, header: string, id: number): Promise<string> {
    const signed = `${header}.r.${id}`;
    return `${signed}.${await this.#sign(channel, signed)}`;
  }

  /** Checks an envelope's MAC and age, and opens an inline one: what it holds, or why not. */
  async check(
    channel: string,
    payload: string,
    now = Date.now(),
  ): Promise<{ ok: Opened; nonce: string; ms: number } | { refused: Refusal }> {
    const parts = payload.split(".");
    if (parts.length !== 7 || parts[0] !== VERSION || !/^\d{1,15}$/.test(parts[1])) {
      return { refused: "malformed" };
    }
    const [, ms, epoch, nonce, kind, data, mac] = parts;
    if (kind !== "i" && !(kind === "r" && /^\d{1,15}$/.test(data))) return { refused: "malformed" };
    let macBytes: Uint8Array;
    try {
      macBytes = fromBase64url(mac);
    } catch {
      return { refused: "malformed" };
    }
    const signed = parts.slice(0, 6).join(".");
    const good = await crypto.subtle.verify(
      "HMAC",
      this.#mac,
      macBytes as BufferSource,
      encoder.encode(`${channel}\n${signed}`),
    );
    if (!good) return { refused: "bad mac" };
    if (Math.abs(now - Number(ms)) > WINDOW_MS) return { refused: "too old or too new" };
    const header = parts.slice(0, 4).join(".");
    let ok: Opened = { ref: Number(data), header };
    if (kind === "i") {
      try {
        ok = { json: await this.#decrypt(channel, header, data) };
      } catch {
        return { refused: "undecryptable" };
      }
    }
    return { ok, nonce: `${epoch}.${nonce}`, ms: Number(ms) };
  }

  /** Decrypts a ciphertext sealed for `channel` with `header`; throws when it does not open. */
  async open(channel: string, header: string, ciphertext: string): Promise<string> {
    return await this.#decrypt(channel, header, ciphertext);
  }

  async #decrypt(channel: string, header: string, ciphertext: string): Promise<string> {
    const [, , epoch, nonce] = header.split(".");
    const plain = await crypto.subtle.decrypt(
      {
        name: "AES-GCM",
        iv: fromBase64url(nonce) as BufferSource,
        additionalData: encoder.encode(`${channel}\n${header}`),
      },
      await this.#keyOf(epoch),
      fromBase64url(ciphertext) as BufferSource,
    );
    return decoder.decode(plain);
  }
}

/** The nonces accepted on one channel, each kept until its envelope would be too old anyway. */
export class ReplayGuard {
  #seen = new Map<string, number>();
  #sweep = 0;

  /** Whether `nonce` (sealed at `ms`) is new; remembers it. */
  fresh(nonce: string, ms: number, now = Date.now()): boolean {
    if (now >= this.#sweep) {
      for (const [n, until] of this.#seen) if (until < now) this.#seen.delete(n);
      this.#sweep = now + 10_000;
    }
    if (this.#seen.has(nonce)) return false;
    this.#seen.set(nonce, ms + WINDOW_MS);
    return true;
  }
}
