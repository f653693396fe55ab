/** Small cryptographic helpers on Web Crypto and Node's crypto and Buffer. */
import { Buffer } from "node:buffer";
import { createHash, timingSafeEqual } from "node:crypto";

const encoder = new TextEncoder();

/** Returns `bytes` random bytes as URL-safe base64 without padding. */
export function randomId(bytes = 16): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** Encodes bytes as URL-safe base64 without padding. */
export function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
}

/** Encodes bytes as lowercase hex. */
export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** SHA-256 of a string, hex encoded. */
export async function sha256Hex(text: string): Promise<string> {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text))));
}

/** HMAC-SHA256 of `message` (text, or raw bytes as received) under `secret`. */
export async function hmacBytes(secret: string, message: string | Uint8Array): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const data = typeof message === "string" ? encoder.encode(message) : message;
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, data as BufferSource));
}

/** HMAC-SHA256 of `message` under `secret`, URL-safe base64. */
export async function hmac(secret: string, message: string): Promise<string> {
  return base64url(await hmacBytes(secret, message));
}

/**
 * Compares two strings in time that does not depend on where they differ. Both are hashed first, so
 * the compared buffers have one length and a length mismatch costs the same time as any other.
 */
export function safeEqual(a: string, b: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}
