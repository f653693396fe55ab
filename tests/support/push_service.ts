/**
 * A local Web Push service for tests (Deno.serve with TLS on loopback) and the subscriber's side
 * of a subscription: the test holds the private key and auth secret, checks the VAPID JWT and
 * decrypts the aes128gcm body (RFC 8291) as a browser or a phone would.
 */
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

export function b64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
}
export function unb64url(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}
function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, (at += p.length) - p.length);
  return out;
}

/** A browser's side of a push subscription: an ECDH key pair and an auth secret. */
export async function browserKeys() {
  const pair = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
    "deriveBits",
  ]) as CryptoKeyPair;
  const publicRaw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  const auth = crypto.getRandomValues(new Uint8Array(16));
  return { pair, publicRaw, auth, p256dh: b64url(publicRaw), authB64: b64url(auth) };
}

async function hkdf(
  salt: Uint8Array<ArrayBuffer>,
  ikm: Uint8Array<ArrayBuffer>,
  info: Uint8Array<ArrayBuffer>,
  bytes: number,
) {
  const key = await crypto.subtle.importKey("raw", ikm, "HKDF", false, ["deriveBits"]);
  return new Uint8Array(
    await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt, info }, key, bytes * 8),
  );
}

/** Decrypts an aes128gcm Web Push body (RFC 8188 framing, RFC 8291 keys) as the browser would. */
export async function decrypt(body: Uint8Array, b: Awaited<ReturnType<typeof browserKeys>>) {
  const salt = body.slice(0, 16);
  const idLen = body[20];
  const serverPublic = body.slice(21, 21 + idLen);
  const ciphertext = body.slice(21 + idLen);
  const serverKey = await crypto.subtle.importKey(
    "raw",
    serverPublic,
    { name: "ECDH", namedCurve: "P-256" },
    false,
    [],
  );
  const shared = new Uint8Array(
    await crypto.subtle.deriveBits({ name: "ECDH", public: serverKey }, b.pair.privateKey, 256),
  );
  const keyInfo = concat(enc.encode("WebPush: info\0"), b.publicRaw, serverPublic);
  const ikm = await hkdf(b.auth, shared, keyInfo, 32);
  const cek = await hkdf(salt, ikm, enc.encode("Content-Encoding: aes128gcm\0"), 16);
  const nonce = await hkdf(salt, ikm, enc.encode("Content-Encoding: nonce\0"), 12);
  const aes = await crypto.subtle.importKey("raw", cek, "AES-GCM", false, ["decrypt"]);
  const padded = new Uint8Array(
    await crypto.subtle.decrypt({ name: "AES-GCM", iv: nonce }, aes, ciphertext),
  );
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  assertEquals(padded[end], 2, "the last record ends with the 0x02 delimiter");
  return dec.decode(padded.slice(0, end));
}

/** Checks the `vapid t=<JWT>, k=<key>` header: ES256 over the claims, by the server's key. */
export async function checkVapid(header: string, publicKey: string, audience: string) {
  const m = /^vapid t=([\w-]+)\.([\w-]+)\.([\w-]+), k=([\w-]+)$/.exec(header);
  assert(m, `a VAPID Authorization header: ${header}`);
  assertEquals(m[4], publicKey);
  const claims = JSON.parse(dec.decode(unb64url(m[2])));
  assertEquals(JSON.parse(dec.decode(unb64url(m[1]))).alg, "ES256");
  assertEquals(claims.aud, audience);
  assert(claims.exp * 1000 > Date.now(), "the JWT has not expired");
  assertStringIncludes(claims.sub, "mailto:");
  const key = await crypto.subtle.importKey(
    "raw",
    unb64url(publicKey),
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["verify"],
  );
  const ok = await crypto.subtle.verify(
    { name: "ECDSA", hash: "SHA-256" },
    key,
    unb64url(m[3]),
    enc.encode(`${m[1]}.${m[2]}`),
  );
  assert(ok, "the JWT is signed by the server's VAPID key");
}

/** A local push service over TLS; `gone` paths answer 410 as a push service does. */
export async function pushService() {
  const dir = await Deno.makeTempDir({ prefix: "parley-push-" });
  const made = await new Deno.Command("openssl", {
    args: [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-addext",
      // A self-signed CA certificate may not also serve as the server's own (rustls).
      "basicConstraints=critical,CA:FALSE",
      "-days",
      "1",
      "-keyout",
      `${dir}/key.pem`,
      "-out",
      `${dir}/cert.pem`,
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!made.success) throw new Error(dec.decode(made.stderr));
  const cert = await Deno.readTextFile(`${dir}/cert.pem`);
  const key = await Deno.readTextFile(`${dir}/key.pem`);
  const received: { path: string; headers: Headers; body: Uint8Array }[] = [];
  const gone = new Set<string>();
  const { promise: ready, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert,
    key,
    onListen: ({ port }) => resolve(port),
  }, async (req) => {
    const path = new URL(req.url).pathname;
    received.push({
      path,
      headers: new Headers(req.headers),
      body: new Uint8Array(await req.arrayBuffer()),
    });
    return new Response(null, { status: gone.has(path) ? 410 : 201 });
  });
  const port = await ready;
  return {
    url: (path: string) => `https://127.0.0.1:${port}${path}`,
    origin: `https://127.0.0.1:${port}`,
    received,
    gone,
    cert,
    async close() {
      await server.shutdown();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
