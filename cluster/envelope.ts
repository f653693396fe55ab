/**
 * The envelope every message between nodes travels in. Any role that may connect to the database
 * can LISTEN and NOTIFY on any channel, so a node believes only what the nodes' shared secret
 * sealed, and says nothing a listener could read. An envelope is a JWE in compact form (RFC 7516,
 * by `jose`): `dir` + `A256GCM`, its protected header (authenticated by the cipher's tag) carrying
 *
 * - `kid`: the sender's epoch, random per sender process; the key is derived (HKDF-SHA256) from
 *   the secret and the epoch, so no one key encrypts more than a process sends;
 * - `ch`: the channel's name, checked on open, so an envelope cannot be replayed on another one;
 * - `iat`: when it was sealed (ms since 1970); older or newer than WINDOW_MS by the receiver's
 *   clock, it is refused;
 * - `jti`: random; within the window each is accepted once (no replays);
 * - `cty`: `ref` when the plaintext is not the message but `{"ref": <row id>, "jti": <jti>}`,
 *   pointing at a `cluster_payloads` row holding the message's own envelope (a NOTIFY payload is
 *   at most 8000 bytes); the row's envelope must carry that jti, so a reference opens only its own.
 */
import { compactDecrypt, CompactEncrypt, type CompactJWEHeaderParameters } from "jose";
import { Buffer } from "node:buffer";
import { randomId } from "../lib/crypto.ts";

/**
 * How far an envelope's time may be from the receiver's clock (ms).
 *
 * @internal test seam
 */
export const WINDOW_MS = 60_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Why an envelope was refused (for the log; never its contents). */
export type Refusal = "malformed" | "too old or too new" | "replayed" | "undecryptable";

/** A sealed message: its envelope, and the jti a reference to it carries when it is too large. */
interface Sealed {
  inline: string;
  jti: string;
}

/** What an accepted envelope holds: the JSON text, or the row to read the message's envelope from. */
type Opened = { json: string } | { ref: number; jti: string };

/** The protected header Parley writes (and reads back, authenticated). */
interface Header extends CompactJWEHeaderParameters {
  kid: string;
  ch: string;
  iat: number;
  jti: string;
  cty?: "ref";
}

/** The keys the nodes derive from their shared secret. */
export class ClusterKeys {
  #secret: CryptoKey;
  #epoch = randomId(16);
  #own: Promise<CryptoKey>;
  /** Senders' keys by epoch, most recent last (only epochs that opened an envelope stay). */
  #epochs = new Map<string, CryptoKey>();

  private constructor(secret: CryptoKey) {
    this.#secret = secret;
    this.#own = this.#derive(this.#epoch);
  }

  /** Derives the keys from the secret every node is configured with. */
  static async derive(secret: string): Promise<ClusterKeys> {
    const ikm = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, [
      "deriveKey",
    ]);
    return new ClusterKeys(ikm);
  }

  #derive(epoch: string): Promise<CryptoKey> {
    return crypto.subtle.deriveKey(
      {
        name: "HKDF",
        hash: "SHA-256",
        salt: Buffer.from(epoch, "base64url"),
        info: encoder.encode("parley cluster encryption"),
      },
      this.#secret,
      { name: "AES-GCM", length: 256 },
      false,
      ["encrypt", "decrypt"],
    );
  }

  /** Remembers the key of an epoch that opened an envelope (a forged epoch never gets here). */
  #keep(epoch: string, key: CryptoKey): void {
    this.#epochs.delete(epoch);
    // A handful of nodes, each with a new epoch per start: 64 is plenty.
    if (this.#epochs.size >= 64) this.#epochs.delete(this.#epochs.keys().next().value!);
    this.#epochs.set(epoch, key);
  }

  async #seal(header: Header, plaintext: string): Promise<string> {
    return await new CompactEncrypt(encoder.encode(plaintext))
      .setProtectedHeader(header)
      .encrypt(await this.#own);
  }

  /** Seals `json` for `channel`, at `now` (ms). */
  async seal(channel: string, json: string, now = Date.now()): Promise<Sealed> {
    const jti = randomId(12);
    const header: Header = {
      alg: "dir",
      enc: "A256GCM",
      kid: this.#epoch,
      ch: channel,
      iat: now,
      jti,
    };
    return { inline: await this.#seal(header, json), jti };
  }

  /** The envelope that points at a stored envelope (row `id`) whose jti is `jti`. */
  async reference(channel: string, jti: string, id: number, now = Date.now()): Promise<string> {
    const header: Header = {
      alg: "dir",
      enc: "A256GCM",
      kid: this.#epoch,
      ch: channel,
      iat: now,
      jti: randomId(12),
      cty: "ref",
    };
    return await this.#seal(header, JSON.stringify({ ref: id, jti }));
  }

  /** Decrypts an envelope sealed for `channel`: its header and plaintext, or why not. */
  async #decrypt(
    channel: string,
    payload: string,
  ): Promise<{ header: Header; text: string } | { refused: Refusal }> {
    // Cheap checks first: a compact JWE is five base64url parts, the second empty for `dir`.
    if (!/^[\w-]+\.\.[\w-]+\.[\w-]*\.[\w-]+$/.test(payload)) {
      return { refused: "malformed" };
    }
    let head: Partial<Header>;
    try {
      head = JSON.parse(
        Buffer.from(payload.slice(0, payload.indexOf(".")), "base64url").toString(),
      );
    } catch {
      return { refused: "malformed" };
    }
    const epoch = head?.kid;
    if (typeof epoch !== "string" || !/^[\w-]{22}$/.test(epoch)) return { refused: "malformed" };
    const kept = this.#epochs.get(epoch);
    const key = kept ?? await this.#derive(epoch);
    let header: Header;
    let text: string;
    try {
      const opened = await compactDecrypt(payload, key, {
        keyManagementAlgorithms: ["dir"],
        contentEncryptionAlgorithms: ["A256GCM"],
      });
      header = opened.protectedHeader as Header;
      text = decoder.decode(opened.plaintext);
    } catch {
      return { refused: "undecryptable" };
    }
    if (!kept) this.#keep(epoch, key);
    // Authentic from here on: sealed by a node, so its fields are the ones seal() writes.
    if (header.ch !== channel) return { refused: "undecryptable" };
    return { header, text };
  }

  /** Opens an envelope: what it holds, its jti and time, or why not. */
  async check(
    channel: string,
    payload: string,
    now = Date.now(),
  ): Promise<{ ok: Opened; nonce: string; ms: number } | { refused: Refusal }> {
    const opened = await this.#decrypt(channel, payload);
    if ("refused" in opened) return opened;
    const { header, text } = opened;
    if (!(Math.abs(now - header.iat) <= WINDOW_MS)) return { refused: "too old or too new" };
    let ok: Opened = { json: text };
    if (header.cty === "ref") {
      const ref = JSON.parse(text) as { ref: number; jti: string };
      ok = { ref: ref.ref, jti: ref.jti };
    }
    return { ok, nonce: `${header.kid}.${header.jti}`, ms: header.iat };
  }

  /** Opens the stored envelope a reference points at; throws unless it is the one (`jti`). */
  async open(channel: string, stored: string, jti: string): Promise<string> {
    const opened = await this.#decrypt(channel, stored);
    if ("refused" in opened || opened.header.jti !== jti || opened.header.cty) {
      throw new Error("not the referenced envelope");
    }
    return opened.text;
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
