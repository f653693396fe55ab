/**
 * HTTP requests that can only reach addresses the policy allows: the host name is resolved once,
 * every address is checked, and the TCP connection is opened to a checked address (TLS then
 * verifies the certificate against the name and sends it as SNI). Nothing resolves the name again
 * later, so DNS rebinding cannot slip another address in. A small HTTP/1.1 client on
 * `Deno.connect` does the request, because `fetch` would resolve the name by itself. Link previews
 * GET pages through it; Web Push POSTs to push services through it.
 */
import { isLocalName, isPublicAddress, parseIPv4 } from "./address.ts";

/** Limits and policy of one fetch. */
export interface SafeFetchOptions {
  /** For the whole fetch, redirects included. */
  timeoutMs?: number;
  /** Body bytes kept; the rest is not read. */
  maxBytes?: number;
  maxRedirects?: number;
  /** Whether an address may be connected to; default: public addresses only. */
  allowAddress?: (ip: string) => boolean;
  /** Resolves a host name to its addresses; default: DNS A and AAAA records. */
  resolve?: (host: string) => Promise<string[]>;
  userAgent?: string;
  /** Default GET; a POST sends `body`. */
  method?: "GET" | "POST";
  /** Request headers besides Host, Connection and Content-Length (which are set here). */
  headers?: Headers;
  body?: Uint8Array;
  /** Certificate authorities trusted besides the system's (tests' local TLS servers). */
  caCerts?: string[];
  /**
   * Takes the final response's body piece by piece as it arrives (within `maxBytes`) instead of
   * keeping it: `body` is then empty. Returning true stops reading there and closes the socket.
   */
  onBody?: (piece: Uint8Array, head: { status: number; headers: Headers }) => boolean;
}

/** A fetched response; `url` is the final one after redirects. */
export interface SafeResponse {
  url: URL;
  status: number;
  headers: Headers;
  body: Uint8Array;
  /** The body was longer than `maxBytes` and was cut. */
  truncated: boolean;
}

/** The fetch was refused by policy (scheme or address): the caller's input is at fault. */
export class FetchRefused extends Error {}
/** The fetch failed: DNS, connection, timeout, too many redirects, malformed answer. */
export class FetchFailed extends Error {}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const MAX_HEAD = 32 * 1024;

/** The DNS A and AAAA records of a name. */
export async function resolveDns(host: string): Promise<string[]> {
  const results = await Promise.allSettled([
    Deno.resolveDns(host, "A"),
    Deno.resolveDns(host, "AAAA"),
  ]);
  return results.flatMap((r) => (r.status === "fulfilled" ? r.value : []));
}

/** Checks the scheme of a URL given by a user; throws FetchRefused. */
export function checkScheme(url: URL): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new FetchRefused("Only http:// and https:// URLs can be fetched.");
  }
  if (url.username || url.password) throw new FetchRefused("URLs with credentials are refused.");
}

/** The addresses to connect to for a URL's host, every one of them allowed; else FetchRefused. */
export async function checkedAddresses(
  hostname: string,
  allow: (ip: string) => boolean,
  resolve: (host: string) => Promise<string[]>,
): Promise<string[]> {
  let addresses: string[];
  if (hostname.startsWith("[")) addresses = [hostname.slice(1, -1)];
  else if (parseIPv4(hostname) !== undefined) addresses = [hostname];
  else if (isLocalName(hostname)) addresses = ["127.0.0.1", "::1"];
  else {
    try {
      addresses = await resolve(hostname);
    } catch {
      addresses = [];
    }
    if (!addresses.length) throw new FetchFailed(`Could not resolve ${hostname}.`);
  }
  // Every address is checked: a name with one private address among public ones is refused.
  for (const ip of addresses) {
    if (!allow(ip)) throw new FetchRefused(`The address of ${hostname} is not public.`);
  }
  return addresses;
}

/** The connection of one request, and how the caller follows it for the deadline. */
export interface ConnectOptions {
  allow: (ip: string) => boolean;
  resolve: (host: string) => Promise<string[]>;
  caCerts?: string[];
  /** Told of each connection opened (and of undefined when it is closed). */
  track?: (conn: Deno.Conn | undefined) => void;
}

/**
 * Opens a connection to the host of `url` (TLS for https:) at one of its checked addresses only:
 * the one place a request started by a user reaches the network. Throws FetchRefused when an
 * address is not allowed, FetchFailed when none answers.
 */
export async function checkedConnect(url: URL, opts: ConnectOptions): Promise<Deno.Conn> {
  checkScheme(url);
  const addresses = await checkedAddresses(url.hostname, opts.allow, opts.resolve);
  const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
  let tcp: Deno.TcpConn | undefined;
  let lastError: unknown;
  for (const ip of addresses) {
    try {
      tcp = await Deno.connect({ hostname: ip, port, transport: "tcp" });
      break;
    } catch (err) {
      lastError = err;
    }
  }
  if (!tcp) throw new FetchFailed(`Could not connect to ${url.host}: ${String(lastError)}`);
  opts.track?.(tcp);
  if (url.protocol !== "https:") return tcp;
  try {
    // The name (not the address) is verified against the certificate and sent as SNI.
    const tls = await Deno.startTls(tcp, {
      hostname: url.hostname.replace(/^\[|\]$/g, ""),
      caCerts: opts.caCerts,
    });
    opts.track?.(tls);
    return tls;
  } catch (err) {
    closeQuietly(tcp);
    throw err;
  }
}

/** Buffered reading from a connection. */
class ByteReader {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  buf: Uint8Array = new Uint8Array(0);
  eof = false;
  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }
  async fill(): Promise<boolean> {
    if (this.eof) return false;
    const { done, value } = await this.#reader.read();
    if (done || !value) {
      this.eof = true;
      return false;
    }
    // Only a line being looked for (at most a few KB) is ever joined with what came before.
    if (!this.buf.length) this.buf = value;
    else {
      const next = new Uint8Array(this.buf.length + value.length);
      next.set(this.buf);
      next.set(value, this.buf.length);
      this.buf = next;
    }
    return true;
  }
  take(n: number): Uint8Array {
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }
  /** Reads up to CRLF (not included); at most `limit` bytes. */
  async line(limit = 8192): Promise<string> {
    for (;;) {
      const i = this.buf.indexOf(10);
      if (i !== -1) {
        const text = decoder.decode(this.take(i + 1));
        return text.replace(/\r?\n$/, "");
      }
      if (this.buf.length > limit) throw new FetchFailed("A response line is too long.");
      if (!(await this.fill())) throw new FetchFailed("The connection closed early.");
    }
  }
  /** What is buffered or arrives next, at most `n` bytes; empty only at the end of the stream. */
  async some(n: number): Promise<Uint8Array> {
    if (!this.buf.length && !(await this.fill())) return new Uint8Array(0);
    return this.take(Math.min(n, this.buf.length));
  }
}

async function readHead(r: ByteReader): Promise<{ status: number; headers: Headers }> {
  const statusLine = await r.line();
  const m = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(statusLine);
  if (!m) throw new FetchFailed("The answer is not HTTP/1.x.");
  const headers = new Headers();
  let size = statusLine.length;
  for (;;) {
    const line = await r.line();
    if (line === "") break;
    size += line.length;
    if (size > MAX_HEAD) throw new FetchFailed("The response headers are too large.");
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    try {
      headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    } catch { /* an invalid header is ignored */ }
  }
  return { status: Number(m[1]), headers };
}

/** Hands a body piece on; false once no more is wanted. */
type Take = (piece: Uint8Array) => boolean;

/** Passes `n` bytes (fewer if the stream ends) to `take` piece by piece as they arrive. */
async function copy(r: ByteReader, n: number, take: Take): Promise<boolean> {
  while (n > 0) {
    const piece = await r.some(n);
    if (!piece.length) return true;
    n -= piece.length;
    if (!take(piece)) return false;
  }
  return true;
}

/**
 * Reads a body of any framing up to `max` bytes, each piece going to `sink` if given (which may
 * stop the reading), else kept. Nothing is joined until the end, so the work is linear in the size.
 */
async function readBody(
  r: ByteReader,
  headers: Headers,
  max: number,
  sink?: (piece: Uint8Array) => boolean,
): Promise<{ body: Uint8Array; truncated: boolean }> {
  const parts: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  const take: Take = (piece) => {
    const room = max - total;
    if (piece.length > room) {
      truncated = true;
      piece = piece.subarray(0, room);
    }
    total += piece.length;
    if (sink) return !(piece.length && sink(piece)) && !truncated;
    parts.push(piece.slice());
    return !truncated;
  };
  if (/\bchunked\b/i.test(headers.get("transfer-encoding") ?? "")) {
    for (;;) {
      const size = parseInt((await r.line()).split(";")[0].trim(), 16);
      if (!Number.isFinite(size)) throw new FetchFailed("A malformed chunked body.");
      if (size === 0 || !(await copy(r, size, take))) break;
      await r.line();
    }
  } else if (headers.has("content-length")) {
    const length = Number(headers.get("content-length"));
    if (!Number.isSafeInteger(length) || length < 0) throw new FetchFailed("A bad Content-Length.");
    await copy(r, length, take);
  } else {
    await copy(r, Infinity, take);
  }
  const body = new Uint8Array(sink ? 0 : total);
  let off = 0;
  for (const p of parts) body.set(p, (off += p.length) - p.length);
  return { body, truncated };
}

function closeQuietly(conn: Deno.Conn | undefined): void {
  try {
    conn?.close();
  } catch { /* already closed */ }
}

/** What one request sends. */
type RequestOptions =
  & Required<Pick<SafeFetchOptions, "maxBytes" | "userAgent">>
  & Pick<SafeFetchOptions, "onBody" | "method" | "headers" | "body">
  & ConnectOptions;

/** The request's head: fixed headers here, the caller's after them, no line breaks anywhere. */
function requestHead(url: URL, opts: RequestOptions): string {
  const lines = [
    `${opts.method ?? "GET"} ${url.pathname}${url.search} HTTP/1.1`,
    `Host: ${url.host}`,
    `User-Agent: ${opts.userAgent}`,
    "Accept-Encoding: identity",
    "Connection: close",
  ];
  if (!opts.headers?.has("accept") && (opts.method ?? "GET") === "GET") {
    lines.push(
      "Accept: text/html,application/xhtml+xml,application/json;q=0.9,image/*;q=0.8,*/*;q=0.5",
    );
  }
  const fixed = new Set(["host", "user-agent", "accept-encoding", "connection", "content-length"]);
  // Headers holds no CR or LF in a name or value, so nothing can be smuggled into the head.
  for (const [name, value] of opts.headers ?? []) {
    if (!fixed.has(name)) lines.push(`${name}: ${value}`);
  }
  if (opts.body) lines.push(`Content-Length: ${opts.body.length}`);
  return lines.join("\r\n") + "\r\n\r\n";
}

/** One request to one checked address; the connection is closed when it returns. */
async function request(url: URL, opts: RequestOptions): Promise<Omit<SafeResponse, "url">> {
  let conn: Deno.Conn | undefined;
  try {
    conn = await checkedConnect(url, opts);
    const head = requestHead(url, opts);
    const bytes = encoder.encode(head);
    for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
    const body = opts.body ?? new Uint8Array(0);
    for (let off = 0; off < body.length;) off += await conn.write(body.subarray(off));
    const reader = new ByteReader(conn.readable);
    let { status, headers } = await readHead(reader);
    while (status >= 100 && status < 200) ({ status, headers } = await readHead(reader));
    if ((status >= 300 && status < 400) || status === 204) {
      return { status, headers, body: new Uint8Array(0), truncated: false };
    }
    const onBody = opts.onBody;
    const sink = onBody && ((piece: Uint8Array) => onBody(piece, { status, headers }));
    return { status, headers, ...(await readBody(reader, headers, opts.maxBytes, sink)) };
  } finally {
    closeQuietly(conn);
    opts.track?.(undefined);
  }
}

/**
 * Requests `input` (GET unless told), following at most `maxRedirects` redirects, each target
 * checked like the first. Throws FetchRefused (scheme, address) or FetchFailed (network, timeout,
 * redirects).
 */
export async function safeFetch(input: URL, options: SafeFetchOptions = {}): Promise<SafeResponse> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const maxRedirects = options.maxRedirects ?? 3;
  const allow = options.allowAddress ?? isPublicAddress;
  const resolve = options.resolve ?? resolveDns;
  const base = {
    maxBytes: options.maxBytes ?? 1_000_000,
    userAgent: options.userAgent ?? "Parley link preview",
    onBody: options.onBody,
    method: options.method,
    headers: options.headers,
    body: options.body,
    allow,
    resolve,
    caCerts: options.caCerts,
  };
  let current: Deno.Conn | undefined;
  let timedOut = false;
  let expire!: (err: Error) => void;
  const deadline = new Promise<never>((_, reject) => (expire = reject));
  deadline.catch(() => {});
  const timer = setTimeout(() => {
    timedOut = true;
    closeQuietly(current);
    expire(new FetchFailed("The page took too long to answer."));
  }, timeoutMs);
  // A connection opened after the deadline is closed at once, so nothing outlives the fetch.
  const track = (conn: Deno.Conn | undefined) => {
    current = conn;
    if (timedOut) closeQuietly(conn);
  };
  try {
    let url = new URL(input.href);
    for (let hop = 0;; hop++) {
      const res = await Promise.race([request(url, { ...base, track }), deadline]);
      const location = res.headers.get("location");
      if (res.status >= 300 && res.status < 400 && location) {
        if (hop >= maxRedirects) throw new FetchFailed("Too many redirects.");
        try {
          url = new URL(location, url);
        } catch {
          throw new FetchFailed("A redirect to a malformed URL.");
        }
        continue;
      }
      return { url, ...res };
    }
  } catch (err) {
    if (err instanceof FetchRefused || err instanceof FetchFailed) throw err;
    if (timedOut) throw new FetchFailed("The page took too long to answer.");
    throw new FetchFailed(`The page could not be fetched: ${String(err)}`);
  } finally {
    clearTimeout(timer);
    closeQuietly(current);
  }
}
