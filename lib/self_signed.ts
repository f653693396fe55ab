/**
 * Self-signed X.509 certificates made with @peculiar/x509 on Web Crypto (no native code, no openssl
 * binary): an EC P-256 key and a version 3 certificate for it, signed with ECDSA-SHA256, as PEM.
 * What a client certificate for IRC needs (servers look at its fingerprint, not at who signed it).
 * One costs ~1.9 ms of the calling thread: the library's encoding, and Web Crypto's key export,
 * signing and hashing, which run there too (docs/irc.md, "Client certificates").
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { lazy } from "./lazy.ts";

/** A certificate with its private key, both PEM. */
interface SelfSigned {
  cert: string;
  key: string;
}

// Loaded on first use: most days make no certificate, and the library is large.
const x509 = lazy(async () => {
  // The library's provider registry (tsyringe) needs the Reflect metadata API first.
  await import("reflect-metadata");
  const lib = await import("@peculiar/x509");
  lib.cryptoProvider.set(crypto);
  return lib;
});

function pem(label: string, bytes: ArrayBuffer): string {
  const b64 = Buffer.from(bytes).toString("base64").replace(/.{64}/g, "$&\n").replace(/\n$/, "");
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

/** The DER bytes of a PEM block (the first one). */
export function pemBytes(text: string): Uint8Array {
  const m = /-----BEGIN [^-]+-----([^-]+)-----END/.exec(text);
  if (!m) throw new Error("not PEM");
  return new Uint8Array(Buffer.from(m[1].replace(/\s+/g, ""), "base64"));
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
  const lib = await x509();
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const keys = await crypto.subtle.generateKey(alg, true, ["sign", "verify"]);
  // CN only, kept short and printable: it is shown, never trusted.
  const cn = (commonName.slice(0, 64) || "parley").replace(/[,+="\\<>;#]/g, "\\$&");
  const now = Date.now();
  const cert = await lib.X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex")
      .replace(/^[89a-f]/, (c) => (parseInt(c, 16) - 8).toString(16)),
    name: `CN=${cn}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + days * 86_400_000),
    signingAlgorithm: alg,
    keys,
  });
  const pkcs8 = await crypto.subtle.exportKey("pkcs8", keys.privateKey);
  return { cert: cert.toString("pem") + "\n", key: pem("PRIVATE KEY", pkcs8) };
}
