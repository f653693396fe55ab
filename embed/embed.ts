/** Looks up a URL for a link preview: safe fetch, metadata, oEmbed discovery, cache. */
import { LruCache } from "./cache.ts";
import { checkUrl, type Fetched, safeFetch } from "./fetch.ts";
import { cardHtml, type EmbedInfo, mergeOembed, parseHtml } from "./metadata.ts";

/** Options of the embed lookups. */
export interface EmbedOptions {
  allowPrivate: boolean;
  userAgent?: string;
}

const LIMITS = { timeoutMs: 5000, maxBytes: 1_000_000, maxRedirects: 3 };

function decode(res: Fetched): string {
  const type = res.headers.get("content-type") ?? "";
  let charset = /charset=["']?([\w-]+)/i.exec(type)?.[1];
  if (!charset) {
    const head = new TextDecoder("latin1").decode(res.body.subarray(0, 2048));
    charset = /<meta[^>]+charset=["']?([\w-]+)/i.exec(head)?.[1];
  }
  try {
    return new TextDecoder(charset ?? "utf-8").decode(res.body);
  } catch {
    return new TextDecoder().decode(res.body);
  }
}

/** Embed lookups with a cache shared by all users (the answer depends only on the URL). */
export class Embedder {
  #cache = new LruCache<EmbedInfo>(500, 3600_000);
  constructor(readonly opts: EmbedOptions) {}

  /** The oEmbed-style information about `url`; throws EmbedRefused or EmbedFailed. */
  async lookup(text: string): Promise<EmbedInfo> {
    const url = checkUrl(text);
    const key = url.href;
    const hit = this.#cache.get(key);
    if (hit) return hit;
    const info = await this.#lookup(url);
    this.#cache.set(key, info);
    return info;
  }

  async #lookup(url: URL): Promise<EmbedInfo> {
    const fetchOpts = {
      ...LIMITS,
      allowPrivate: this.opts.allowPrivate,
      userAgent: this.opts.userAgent,
    };
    const res = await safeFetch(url, fetchOpts);
    const type = (res.headers.get("content-type") ?? "").toLowerCase();
    const provider = res.url.hostname;
    let info: EmbedInfo;
    if (res.status >= 400) {
      info = { type: "link", url: url.href, provider_name: provider };
    } else if (type.startsWith("image/")) {
      const name = decodeURIComponent(res.url.pathname.split("/").pop() ?? "") || provider;
      info = {
        type: "photo",
        url: res.url.href,
        title: name,
        provider_name: provider,
        thumbnail_url: res.url.href,
      };
    } else if (/html|xml/.test(type) || type === "") {
      const meta = parseHtml(decode(res), res.url);
      info = {
        type: "link",
        url: res.url.href,
        title: meta.title,
        description: meta.description,
        provider_name: meta.siteName ?? provider,
        thumbnail_url: meta.image,
      };
      if (meta.oembed) {
        try {
          const o = await safeFetch(meta.oembed, { ...fetchOpts, accept: "application/json" });
          if (o.status < 300) info = mergeOembed(info, JSON.parse(decode(o)), o.url);
        } catch { /* the page's own metadata is enough */ }
      }
    } else {
      info = { type: "link", url: res.url.href, provider_name: provider };
    }
    for (const k of Object.keys(info) as (keyof EmbedInfo)[]) {
      if (info[k] === undefined) delete info[k];
    }
    return { ...info, html: cardHtml(info) };
  }
}
