/**
 * A fetch for embed that only ever talks to checked addresses: the host is resolved, every
 * address it resolves to is checked, and the TCP connection is opened to a checked address
 * (TLS then verifies the certificate against the host name). No second resolution happens at
 * connect time, so DNS rebinding cannot swap in a private address. Each redirect target goes
 * through the same steps.
 */
import { canonicalIp, isPublicAddress } from "./address.ts";

/** The URL or one of its addresses is not allowed (a 400 at `/query/url`). */
export class EmbedRefused extends Error {}
/** The resource could not be fetched (network, timeout, bad answer). */
export class EmbedFailed extends Error {}

/** Limits of one fetch. */
export interface SafeFetchOptions {
  /** Lifts the address rule (intranets, tests). */
  allowPrivate: boolean;
  /** Replaces the address rule (tests); every resolved address must pass it. */
  allowAddress?: (ip: string) => boolean;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  accept?: string;
  userAgent?: string;
}

/** A fetched resource: the final URL after redirects, the status, headers and (capped) body. */
export interface Fetched {
  url: URL;
  status: number;
  headers: Headers;
  body: Uint8Array;
  /** True when the body was cut at maxBytes. */
  truncated: boolean;
}

/** Refuses anything but http(s) URLs with a host. */
export function checkUrl(text: string | URL): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new EmbedRefused("Not a valid URL.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new EmbedRefused("Only http and https URLs can be embedded.");
  }
  if (!url.hostname) throw new EmbedRefused("The URL has no host.");
  return url;
}

/** Resolves a host to its addresses (IP literals in any spelling are taken as they are). */
export async function resolveHost(host: string): Promise<string[]> {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase().replace(/\.$/, "");
  const literal = canonicalIp(h);
  if (literal) return [literal];
  if (h === "localhost" || h.endsWith(".localhost")) return ["127.0.0.1", "::1"];
  const found = await Promise.allSettled([
    Deno.resolveDns(h, "A"),
    Deno.resolveDns(h, "AAAA"),
  ]);
  const out = found.flatMap((r) => (r.status === "fulfilled" ? r.value : []));
  if (!out.length) throw new EmbedFailed(`Could not resolve ${h}.`);
  return out;
}

/** The addresses a URL's host may be reached at; refuses when any of them is not public. */
export async function checkedAddresses(
  url: URL,
  allowPrivate: boolean,
  allowAddress: (ip: string) => boolean = isPublicAddress,
): Promise<string[]> {
  const addresses = await resolveHost(url.hostname);
  if (!allowPrivate && addresses.some((a) => !allowAddress(a))) {
    throw new EmbedRefused("The URL points to a private or reserved address.");
  }
  // IPv4 first: it is the more likely to be routable from a small server.
  return addresses.sort((a, b) => Number(a.includes(":")) - Number(b.includes(":")));
}

/** Fetches `text` under the embed rules, following at most `maxRedirects` redirects. */
export async function safeFetch(text: string | URL, opts: SafeFetchOptions): Promise<Fetched> {
  const deadline = Date.now() + (opts.timeoutMs ?? 5000);
  let url = checkUrl(text);
  const maxRedirects = opts.maxRedirects ?? 3;
  for (let hop = 0;; hop++) {
    const addresses = await checkedAddresses(url, opts.allowPrivate, opts.allowAddress);
    const res = await request(url, addresses[0], deadline, opts);
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      if (hop >= maxRedirects) throw new EmbedFailed("Too many redirects.");
      url = checkUrl(new URL(location, url));
      continue;
    }
    return res;
  }
}

const CRLF2 = new Uint8Array([13, 10, 13, 10]);

function indexOf(buf: Uint8Array, needle: Uint8Array, from = 0): number {
  outer: for (let i = from; i <= buf.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (buf[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** One HTTP/1.1 request to `address`, with the URL's host in `Host` and in TLS. */
async function request(
  url: URL,
  address: string,
  deadline: number,
  opts: SafeFetchOptions,
): Promise<Fetched> {
  const maxBytes = opts.maxBytes ?? 1_000_000;
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const remaining = deadline - Date.now();
  if (remaining <= 0) throw new EmbedFailed("Timed out.");
  let conn: Deno.Conn | undefined;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      conn?.close();
    } catch { /* closed */ }
  }, remaining);
  try {
    const tcp = await Deno.connect({ hostname: address, port });
    conn = tcp;
    if (timedOut) throw new EmbedFailed("Timed out.");
    if (url.protocol === "https:") {
      conn = await Deno.startTls(tcp, { hostname: url.hostname.replace(/^\[|\]$/g, "") });
    }
    const head = [
      `GET ${url.pathname}${url.search} HTTP/1.1`,
      `Host: ${url.host}`,
      `User-Agent: ${opts.userAgent ?? "Parley link preview"}`,
      `Accept: ${
        opts.accept ?? "text/html,application/xhtml+xml,application/json,image/*;q=0.8,*/*;q=0.5"
      }`,
      "Accept-Encoding: identity",
      "Connection: close",
      "",
      "",
    ].join("\r\n");
    await writeAll(conn, new TextEncoder().encode(head));
    return await readResponse(conn, url, maxBytes);
  } catch (err) {
    if (err instanceof EmbedFailed || err instanceof EmbedRefused) throw err;
    throw new EmbedFailed(timedOut ? "Timed out." : `Could not fetch: ${(err as Error).message}`);
  } finally {
    clearTimeout(timer);
    try {
      conn?.close();
    } catch { /* closed */ }
  }
}

async function writeAll(conn: Deno.Conn, data: Uint8Array): Promise<void> {
  let off = 0;
  while (off < data.length) off += await conn.write(data.subarray(off));
}

async function readResponse(conn: Deno.Conn, url: URL, maxBytes: number): Promise<Fetched> {
  let buf: Uint8Array = new Uint8Array(0);
  const chunk = new Uint8Array(16 * 1024);
  let eof = false;
  const more = async () => {
    const n = await conn.read(chunk);
    if (n === null) eof = true;
    else buf = concat(buf, chunk.subarray(0, n));
  };
  let end = -1;
  while ((end = indexOf(buf, CRLF2)) === -1) {
    if (eof || buf.length > 64 * 1024) throw new EmbedFailed("Bad HTTP answer.");
    await more();
  }
  const lines = new TextDecoder().decode(buf.subarray(0, end)).split("\r\n");
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0]);
  if (!status) throw new EmbedFailed("Bad HTTP answer.");
  const headers = new Headers();
  for (const line of lines.slice(1)) {
    const i = line.indexOf(":");
    if (i > 0) {
      try {
        headers.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
      } catch { /* an invalid header is skipped */ }
    }
  }
  const code = Number(status[1]);
  buf = buf.subarray(end + 4);
  if ((code >= 300 && code < 400) || code === 204 || code === 304) {
    return { url, status: code, headers, body: new Uint8Array(0), truncated: false };
  }
  const chunked = /chunked/i.test(headers.get("transfer-encoding") ?? "");
  const length = Number(headers.get("content-length") ?? "NaN");
  let body: Uint8Array = new Uint8Array(0);
  let truncated = false;
  if (chunked) {
    // Chunks: "<hex size>\r\n<data>\r\n" until a zero size.
    for (;;) {
      let nl: number;
      while ((nl = indexOf(buf, new Uint8Array([13, 10]))) === -1) {
        if (eof) return { url, status: code, headers, body, truncated: true };
        await more();
      }
      const size = parseInt(new TextDecoder().decode(buf.subarray(0, nl)), 16);
      if (!Number.isFinite(size)) throw new EmbedFailed("Bad chunked body.");
      if (size === 0) break;
      while (buf.length < nl + 2 + size + 2 && !eof && body.length + buf.length < maxBytes * 2) {
        await more();
      }
      body = concat(body, buf.subarray(nl + 2, Math.min(buf.length, nl + 2 + size)));
      buf = buf.subarray(Math.min(buf.length, nl + 2 + size + 2));
      if (body.length >= maxBytes || eof) {
        truncated = body.length >= maxBytes;
        break;
      }
    }
  } else {
    const want = Number.isFinite(length) ? Math.min(length, maxBytes) : maxBytes;
    while (buf.length < want && !eof) await more();
    truncated = buf.length > want || (!Number.isFinite(length) && !eof);
    body = buf.subarray(0, want);
  }
  if (body.length > maxBytes) {
    body = body.subarray(0, maxBytes);
    truncated = true;
  }
  return { url, status: code, headers, body, truncated };
}
