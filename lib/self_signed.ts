/**
 * Self-signed X.509 certificates made with Web Crypto (no native code, no openssl binary): an EC
 * P-256 key and a certificate for it, signed with ECDSA-SHA256, as PEM. What a client certificate
 * for IRC needs (servers look at its fingerprint, not at who signed it). Web Crypto's key
 * generation, export and signing run on the runtime's own threads: made with node:crypto's
 * synchronous calls, one certificate held the main thread for about 0.9 ms, which thousands of
 * connections made at start added up to seconds of.
 */
import { createHash } from "node:crypto";

/** A certificate with its private key, both PEM. */
export interface SelfSigned {
  cert: string;
  key: string;
}

/** DER: a tag and its length-prefixed contents. */
function der(tag: number, ...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const body = concat(parts);
  const n = body.length;
  const len = n < 0x80
    ? [n]
    : n < 0x100
    ? [0x81, n]
    : n < 0x10000
    ? [0x82, n >> 8, n & 0xff]
    : [0x83, n >> 16, (n >> 8) & 0xff, n & 0xff];
  return concat([Uint8Array.of(tag, ...len), body]);
}

function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const seq = (...parts: Uint8Array[]) => der(0x30, ...parts);
const set = (...parts: Uint8Array[]) => der(0x31, ...parts);
const utf8 = (text: string) => der(0x0c, new TextEncoder().encode(text));

/** An OBJECT IDENTIFIER from its dotted form. */
function oid(dotted: string): Uint8Array {
  const [a, b, ...rest] = dotted.split(".").map(Number);
  const bytes = [a * 40 + b];
  for (const n of rest) {
    const groups = [n & 0x7f];
    for (let v = n >>> 7; v > 0; v >>>= 7) groups.unshift((v & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return der(0x06, Uint8Array.from(bytes));
}

/** A positive INTEGER from big-endian bytes. */
function integer(bytes: Uint8Array): Uint8Array {
  let b = bytes;
  while (b.length > 1 && b[0] === 0 && b[1] < 0x80) b = b.subarray(1);
  return der(0x02, b[0] & 0x80 ? concat([Uint8Array.of(0), b]) : b);
}

/** A validity time: UTCTime before 2050, GeneralizedTime from then on (RFC 5280). */
function time(d: Date): Uint8Array {
  const text = d.toISOString().replace(/[-:T]/g, "").slice(0, 14) + "Z";
  const utc = d.getUTCFullYear() < 2050;
  return der(utc ? 0x17 : 0x18, new TextEncoder().encode(utc ? text.slice(2) : text));
}

function pem(label: string, bytes: Uint8Array): string {
  const b64 = btoa(String.fromCharCode(...bytes)).replace(/.{64}/g, "$&\n").replace(/\n$/, "");
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

/** The DER bytes of a PEM block (the first one). */
export function pemBytes(text: string): Uint8Array {
  const m = /-----BEGIN [^-]+-----([^-]+)-----END/.exec(text);
  if (!m) throw new Error("not PEM");
  return Uint8Array.from(atob(m[1].replace(/\s+/g, "")), (c) => c.charCodeAt(0));
}

/**
 * The fingerprint IRC services and Convos show: SHA-512 of the certificate's DER bytes, in
 * lowercase hex without separators (128 characters).
 */
export function fingerprint(certPem: string): string {
  return createHash("sha512").update(pemBytes(certPem)).digest("hex");
}

/** A new key pair and a certificate for `commonName`, valid from now for `days`. */
export async function selfSigned(commonName: string, days = 3650): Promise<SelfSigned> {
  const subtle = crypto.subtle;
  const ecdsa = { name: "ECDSA", namedCurve: "P-256" };
  const { publicKey, privateKey } = await subtle.generateKey(ecdsa, true, ["sign"]);
  const [spki, pkcs8] = await Promise.all([
    subtle.exportKey("spki", publicKey),
    subtle.exportKey("pkcs8", privateKey),
  ]);
  const ecdsaSha256 = seq(oid("1.2.840.10045.4.3.2"));
  // CN only, kept short and printable: it is shown, never trusted.
  const name = seq(set(seq(oid("2.5.4.3"), utf8(commonName.slice(0, 64) || "parley"))));
  const now = Date.now();
  const tbs = seq(
    der(0xa0, integer(Uint8Array.of(2))), // v3
    integer(crypto.getRandomValues(new Uint8Array(16))),
    ecdsaSha256,
    name,
    seq(time(new Date(now - 60_000)), time(new Date(now + days * 86_400_000))),
    name,
    new Uint8Array(spki),
  );
  // Web Crypto signs as r and s side by side (32 bytes each); X.509 wants them as a DER SEQUENCE.
  const rs = new Uint8Array(await subtle.sign({ name: "ECDSA", hash: "SHA-256" }, privateKey, tbs));
  const signature = seq(integer(rs.subarray(0, 32)), integer(rs.subarray(32)));
  const cert = seq(tbs, ecdsaSha256, der(0x03, Uint8Array.of(0), signature));
  return { cert: pem("CERTIFICATE", cert), key: pem("PRIVATE KEY", new Uint8Array(pkcs8)) };
}
