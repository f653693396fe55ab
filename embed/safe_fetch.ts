/**
 * HTTP requests that can only reach addresses the policy allows: the host name is resolved once,
 * every address is checked, and the TCP connection is opened to a checked address (TLS then
 * verifies the certificate against the name and sends it as SNI). Nothing resolves the name again
 * later, so DNS rebinding cannot slip another address in. The requests are node:http's and
 * node:https's (HTTP/1.1, one connection each), whose `lookup` is given the checked addresses:
 * `fetch` would resolve the name by itself, and `Deno.createHttpClient`'s TCP transport speaks no
 * TLS. Each redirect is checked like the first URL. Link previews GET pages through it; Web Push
 * POSTs to push services through it.
 */
import type { LookupAddress } from "node:dns";
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

/** Bytes of response headers accepted. */
const MAX_HEAD = 32 * 1024;
/** What link previews accept when the caller says nothing. */
const ACCEPT = "text/html,application/xhtml+xml,application/json;q=0.9,image/*;q=0.8,*/*;q=0.5";

/** The DNS A and AAAA records of a name. */
export async function resolveDns(host: string): Promise<string[]> {
  const results = await Promise.allSettled([
    Deno.resolveDns(host, "A"),
    Deno.resolveDns(host, "AAAA"),
  ]);
  return results.flatMap((r) => (r.status === "fulfilled" ? r.value : []));
}

/** Checks the scheme of a URL given by a user; throws FetchRefused. */
function checkScheme(url: URL): void {
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

/** The address policy of a request (push/endpoint.ts checks subscriptions with the same). */
export interface ConnectOptions {
  allow: (ip: string) => boolean;
  resolve: (host: string) => Promise<string[]>;
  caCerts?: string[];
}

/** What one request sends. */
type RequestOptions =
  & Required<Pick<SafeFetchOptions, "maxBytes" | "userAgent">>
  & Pick<SafeFetchOptions, "onBody" | "method" | "headers" | "body">
  & ConnectOptions
  & { signal: AbortSignal };

/** node's `lookup` answering only `addresses` (checked already): the name is never resolved again. */
function pinned(addresses: string[]) {
  const all: LookupAddress[] = addresses.map((address) => ({
    address,
    family: address.includes(":") ? 6 : 4,
  }));
  return (
    _host: string,
    options: { all?: boolean },
    // deno-lint-ignore no-explicit-any -- node's callback takes either form
    callback: (...args: any[]) => void,
  ) => {
    if (options?.all) callback(null, all);
    else callback(null, all[0].address, all[0].family);
  };
}

/** The request's headers: fixed ones here, the caller's after them (Headers holds no CR or LF). */
function requestHeaders(opts: RequestOptions): Record<string, string> {
  const out: Record<string, string> = {
    "user-agent": opts.userAgent,
    "accept-encoding": "identity",
    connection: "close",
  };
  if (!opts.headers?.has("accept") && (opts.method ?? "GET") === "GET") out.accept = ACCEPT;
  const fixed = new Set(["host", "user-agent", "accept-encoding", "connection", "content-length"]);
  for (const [name, value] of opts.headers ?? []) if (!fixed.has(name)) out[name] = value;
  if (opts.body) out["content-length"] = String(opts.body.length);
  return out;
}

/** A response's headers as a Headers (repeated ones appended, invalid ones ignored). */
function headersOf(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i], raw[i + 1]);
    } catch {
      // why: a header Headers refuses (a bad name or value) is one the callers could not read anyway.
    }
  }
  return headers;
}

/** One request to a checked address; the connection is closed when it settles. */
async function request(url: URL, opts: RequestOptions): Promise<Omit<SafeResponse, "url">> {
  checkScheme(url);
  const addresses = await checkedAddresses(url.hostname, opts.allow, opts.resolve);
  // Loaded on first use: the IRC side imports this module for resolveDns alone.
  const client = url.protocol === "https:"
    ? (await import("node:https")).default
    : (await import("node:http")).default;
  const { rootCertificates } = await import("node:tls");
  const { promise, resolve, reject } = Promise.withResolvers<Omit<SafeResponse, "url">>();
  const req = client.request(url, {
    method: opts.method ?? "GET",
    headers: requestHeaders(opts),
    lookup: pinned(addresses) as never,
    agent: false,
    maxHeaderSize: MAX_HEAD,
    signal: opts.signal,
    // The name (not the address) is verified against the certificate and sent as SNI.
    ...(opts.caCerts?.length ? { ca: [...rootCertificates, ...opts.caCerts] } : {}),
  }, (res) => {
    const status = res.statusCode ?? 0;
    const headers = headersOf(res.rawHeaders);
    if ((status >= 300 && status < 400) || status === 204) {
      res.destroy();
      resolve({ status, headers, body: new Uint8Array(0), truncated: false });
      return;
    }
    const parts: Uint8Array[] = [];
    let total = 0;
    let truncated = false;
    const sink = opts.onBody;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      res.destroy();
      const body = new Uint8Array(sink ? 0 : total);
      let off = 0;
      for (const p of parts) body.set(p, (off += p.length) - p.length);
      resolve({ status, headers, body, truncated });
    };
    const take = (chunk: Uint8Array) => {
      let piece = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      const room = opts.maxBytes - total;
      if (piece.length > room) {
        truncated = true;
        piece = piece.subarray(0, room);
      }
      total += piece.length;
      let stop = truncated;
      if (sink) stop = (piece.length > 0 && sink(piece, { status, headers })) || stop;
      else parts.push(piece.slice());
      if (stop) finish();
    };
    // What has arrived is read in one piece (a flood of tiny chunks costs one call, not one each).
    res.on("readable", () => {
      for (let chunk; !done && (chunk = res.read()) !== null;) take(chunk);
    });
    res.on("end", finish);
    // A connection cut after the head: what came is the body (as a browser shows it).
    res.on("aborted", finish);
    res.on("error", (err) => reject(err));
  });
  req.on("error", reject);
  req.end(opts.body);
  try {
    return await promise;
  } finally {
    req.destroy();
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
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const base: RequestOptions = {
    maxBytes: options.maxBytes ?? 1_000_000,
    userAgent: options.userAgent ?? "Parley link preview",
    onBody: options.onBody,
    method: options.method,
    headers: options.headers,
    body: options.body,
    allow: options.allowAddress ?? isPublicAddress,
    resolve: options.resolve ?? resolveDns,
    caCerts: options.caCerts,
    signal: deadline.signal,
  };
  const expired = new Promise<never>((_, reject) => {
    deadline.signal.addEventListener("abort", () => {
      reject(new FetchFailed("The page took too long to answer."));
    });
  });
  expired.catch(() => {}); // why: raced below each hop; this only stops an unhandled rejection
  try {
    let url = new URL(input.href);
    for (let hop = 0;; hop++) {
      const res = await Promise.race([request(url, base), expired]);
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
    if (deadline.signal.aborted) throw new FetchFailed("The page took too long to answer.");
    throw new FetchFailed(`The page could not be fetched: ${String(err)}`);
  } finally {
    clearTimeout(timer);
    deadline.abort();
  }
}
