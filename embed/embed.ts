/** The embed operation: fetch a URL safely, read what it is, cache the answer. */
import { isPublicAddress } from "./address.ts";
import { lruCache, Viewed } from "./cache.ts";
import { lazy } from "../lib/lazy.ts";
import type { EmbedInfo } from "./metadata.ts";
import type { PageReader } from "./page_reader.ts";
import { FetchFailed, safeFetch, type SafeFetchOptions } from "./safe_fetch.ts";

/** The page reader and what reads its data (htmlparser2 with them): loaded for the first embed. */
const loadReaders = lazy(async () => ({
  ...await import("./metadata.ts"),
  ...await import("./page_reader.ts"),
}));

/** Limits of the embed fetches; tests may shorten them. */
export const EMBED_LIMITS = {
  timeoutMs: 5000,
  /** Bytes of a page read at most: its head should be over by then (reading stops at its end). */
  headBytes: 256 * 1024,
  maxRedirects: 3,
  /** The oEmbed answer is small; more is not read. */
  oembedBytes: 100_000,
  cacheEntries: 1000,
  cacheMs: 3600_000,
};

function contentType(headers: Headers): string {
  return (headers.get("content-type") ?? "").toLowerCase();
}

/** An HTML page (a missing type is taken as one). */
function isPage(headers: Headers): boolean {
  const type = contentType(headers);
  return !type || type.startsWith("text/html") || type.startsWith("application/xhtml+xml");
}

/** Looks up embeddable information about URLs, with an in-memory cache. */
export class Embedder {
  #cache = lruCache<Viewed<EmbedInfo>>(EMBED_LIMITS.cacheEntries, EMBED_LIMITS.cacheMs);
  #fetch: SafeFetchOptions;

  /** `allowPrivate` lifts the public-address rule (intranets, tests). */
  constructor(allowPrivate: boolean, extra: SafeFetchOptions = {}) {
    this.#fetch = {
      timeoutMs: EMBED_LIMITS.timeoutMs,
      maxRedirects: EMBED_LIMITS.maxRedirects,
      allowAddress: allowPrivate ? () => true : isPublicAddress,
      ...extra,
    };
  }

  /**
   * Whether `viewer` (a user id) has had the fresh cached answer for `url` before (fetches
   * nothing); another user's lookup of it does not count.
   */
  cached(url: URL, viewer: number): boolean {
    return this.#cache.get(url.href)?.seenBy(viewer) ?? false;
  }

  /**
   * The oEmbed-style information about `url`, for `viewer` (a user id, when a user asks); throws
   * FetchRefused or FetchFailed.
   */
  async embed(url: URL, viewer?: number): Promise<EmbedInfo> {
    const cached = this.#cache.get(url.href);
    if (cached) {
      if (viewer !== undefined) cached.see(viewer);
      return cached.value;
    }
    const { PageReader, pageMeta, fromPage, fromImage, fromOther } = await loadReaders();
    // The page is parsed as it arrives; an image or anything else needs no body at all.
    let page: PageReader | undefined;
    const res = await safeFetch(url, {
      ...this.#fetch,
      maxBytes: EMBED_LIMITS.headBytes,
      onBody: (piece, head) => {
        if (head.status >= 400 || !isPage(head.headers)) return true;
        page ??= new PageReader(head.headers.get("content-type") ?? "");
        return page.write(piece);
      },
    });
    if (res.status >= 400) throw new FetchFailed(`The page answered with status ${res.status}.`);
    let info: EmbedInfo;
    if (isPage(res.headers)) {
      const meta = pageMeta((page ?? new PageReader("")).end(), res.url);
      info = fromPage(res.url, meta, meta.oembed ? await this.#oembed(meta.oembed) : undefined);
    } else if (contentType(res.headers).startsWith("image/")) {
      info = fromImage(res.url);
    } else {
      info = fromOther(res.url);
    }
    const entry = new Viewed(info);
    if (viewer !== undefined) entry.see(viewer);
    this.#cache.set(url.href, entry);
    return info;
  }

  /** The oEmbed answer, fetched under the same rules; a failure just means no oEmbed data. */
  async #oembed(href: string): Promise<Record<string, unknown> | undefined> {
    try {
      const res = await safeFetch(new URL(href), {
        ...this.#fetch,
        maxBytes: EMBED_LIMITS.oembedBytes,
      });
      if (res.status !== 200 || res.truncated) return undefined;
      const data = JSON.parse(new TextDecoder().decode(res.body));
      return data && typeof data === "object" && !Array.isArray(data) ? data : undefined;
    } catch {
      return undefined;
    }
  }
}
