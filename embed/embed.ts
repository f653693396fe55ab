/** The embed operation: fetch a URL safely, read what it is, cache the answer. */
import { isPublicAddress } from "./address.ts";
import { LruCache } from "./cache.ts";
import {
  charsetOf,
  decodeText,
  type EmbedInfo,
  fromImage,
  fromOther,
  fromPage,
  parseHtml,
} from "./metadata.ts";
import { FetchFailed, safeFetch, type SafeFetchOptions } from "./safe_fetch.ts";

/** Limits of the embed fetches; tests may shorten them. */
export const EMBED_LIMITS = {
  timeoutMs: 5000,
  maxBytes: 1_000_000,
  maxRedirects: 3,
  /** The oEmbed answer is small; more is not read. */
  oembedBytes: 100_000,
  cacheEntries: 1000,
  cacheMs: 3600_000,
};

/** Looks up embeddable information about URLs, with an in-memory cache. */
export class Embedder {
  #cache = new LruCache<EmbedInfo>(EMBED_LIMITS.cacheEntries, EMBED_LIMITS.cacheMs);
  #fetch: SafeFetchOptions;

  /** `allowPrivate` lifts the public-address rule (intranets, tests). */
  constructor(allowPrivate: boolean, extra: SafeFetchOptions = {}) {
    this.#fetch = {
      timeoutMs: EMBED_LIMITS.timeoutMs,
      maxBytes: EMBED_LIMITS.maxBytes,
      maxRedirects: EMBED_LIMITS.maxRedirects,
      allowAddress: allowPrivate ? () => true : isPublicAddress,
      ...extra,
    };
  }

  /** The oEmbed-style information about `url`; throws FetchRefused or FetchFailed. */
  async embed(url: URL): Promise<EmbedInfo> {
    const cached = this.#cache.get(url.href);
    if (cached) return cached;
    const res = await safeFetch(url, this.#fetch);
    if (res.status >= 400) throw new FetchFailed(`The page answered with status ${res.status}.`);
    const type = (res.headers.get("content-type") ?? "").toLowerCase();
    let info: EmbedInfo;
    if (type.startsWith("image/")) {
      info = fromImage(res.url);
    } else if (/^(text\/html|application\/xhtml\+xml)/.test(type) || !type) {
      const meta = parseHtml(decodeText(res.body, charsetOf(type, res.body)), res.url);
      info = fromPage(res.url, meta, meta.oembed ? await this.#oembed(meta.oembed) : undefined);
    } else {
      info = fromOther(res.url);
    }
    this.#cache.set(url.href, info);
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
