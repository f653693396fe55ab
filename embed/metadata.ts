/**
 * Link metadata: OpenGraph, Twitter card and oEmbed discovery from a page's HTML, merged with an
 * oEmbed answer into one oEmbed-style result. Nothing of the page's markup is kept: the `html` of a
 * result is built here from escaped values only. The page itself is read by html_head.ts.
 */
import { ownString } from "../lib/own_string.ts";
import { type HeadData, HeadReader } from "./html_head.ts";

/** The answer of the embed operation. */
export interface EmbedInfo {
  type: "link" | "photo" | "video" | "rich";
  url: string;
  title?: string;
  description?: string;
  provider_name?: string;
  thumbnail_url?: string;
  html: string;
}

/** What a page says about itself. */
export interface PageMeta {
  title?: string;
  description?: string;
  image?: string;
  siteName?: string;
  url?: string;
  ogType?: string;
  /** The JSON oEmbed endpoint the page advertises. */
  oembed?: string;
}

/** Escapes text for HTML content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * `text` on one line, cut at `max`. A copy of its own: a value with nothing to clean would be a
 * slice of the page, and a cached answer would keep the page's read alive with it.
 */
function clean(text: string | undefined, max: number): string | undefined {
  if (text === undefined) return undefined;
  const t = text.replace(/\s+/g, " ").trim();
  if (!t) return undefined;
  return t.length > max ? t.slice(0, max - 1) + "…" : ownString(t);
}

/** An absolute http(s) URL made from `value` relative to `base`, or undefined. */
export function httpUrl(value: string | undefined, base: URL): string | undefined {
  if (!value) return undefined;
  try {
    const u = new URL(value.trim(), base);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : undefined;
  } catch {
    return undefined;
  }
}

/** What a page's head says, cleaned up, with its URLs resolved against `base`. */
export function pageMeta(head: HeadData, base: URL): PageMeta {
  const pick = (...keys: string[]) => keys.map((k) => head.meta.get(k)).find((v) => v?.trim());
  return {
    title: clean(pick("og:title", "twitter:title") ?? head.title, 300),
    description: clean(pick("og:description", "twitter:description", "description"), 1000),
    image: httpUrl(
      pick("og:image:secure_url", "og:image", "og:image:url", "twitter:image", "twitter:image:src"),
      base,
    ),
    siteName: clean(pick("og:site_name", "application-name"), 200),
    url: httpUrl(pick("og:url"), base),
    ogType: pick("og:type")?.toLowerCase(),
    oembed: httpUrl(head.oembed, base),
  };
}

/** Reads the title, OpenGraph and Twitter card tags and the oEmbed link of a page given whole. */
export function parseHtml(html: string, base: URL): PageMeta {
  const reader = new HeadReader();
  reader.write(html);
  return pageMeta(reader.end(), base);
}

const OEMBED_TYPES = new Set(["link", "photo", "video", "rich"]);

/** Builds the result from page metadata and an optional oEmbed answer (only its plain fields). */
export function fromPage(page: URL, meta: PageMeta, oembed?: Record<string, unknown>): EmbedInfo {
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  const oType = str(oembed?.type);
  let type: EmbedInfo["type"] = oType && OEMBED_TYPES.has(oType)
    ? oType as EmbedInfo["type"]
    : meta.ogType?.startsWith("video")
    ? "video"
    : "link";
  const url = meta.url ?? page.href;
  // An oEmbed photo names the image itself in `url`.
  const photo = type === "photo" ? httpUrl(str(oembed?.url), page) : undefined;
  if (type === "photo" && !photo) type = "link";
  const info: EmbedInfo = {
    type,
    url: photo ?? url,
    title: clean(str(oembed?.title), 300) ?? meta.title,
    description: meta.description,
    provider_name: clean(str(oembed?.provider_name), 200) ?? meta.siteName ?? page.hostname,
    thumbnail_url: httpUrl(str(oembed?.thumbnail_url), page) ?? meta.image ?? photo,
    html: "",
  };
  for (const k of Object.keys(info) as (keyof EmbedInfo)[]) {
    if (info[k] === undefined) delete info[k];
  }
  info.html = embedHtml(info, url);
  return info;
}

/** The result for a URL that is an image. */
export function fromImage(url: URL): EmbedInfo {
  const name = decodeURIComponent(url.pathname.split("/").pop() || "") || url.hostname;
  const info: EmbedInfo = {
    type: "photo",
    url: url.href,
    title: name,
    provider_name: url.hostname,
    thumbnail_url: url.href,
    html: "",
  };
  info.html = embedHtml(info, url.href);
  return info;
}

/** The result for anything that is neither a page nor an image. */
export function fromOther(url: URL): EmbedInfo {
  const info: EmbedInfo = {
    type: "link",
    url: url.href,
    title: decodeURIComponent(url.pathname.split("/").pop() || "") || url.hostname,
    provider_name: url.hostname,
    html: "",
  };
  info.html = embedHtml(info, url.href);
  return info;
}

/** A small HTML card built only from escaped values and checked http(s) URLs. */
export function embedHtml(info: EmbedInfo, link: string): string {
  const a = `<a href="${escapeHtml(link)}" target="_blank" rel="noopener noreferrer nofollow">`;
  if (info.type === "photo") {
    return `<div class="parley-embed parley-embed-photo">${a}<img src="${
      escapeHtml(info.url)
    }" alt="${escapeHtml(info.title ?? "")}" loading="lazy"></a></div>`;
  }
  const thumb = info.thumbnail_url
    ? `<img src="${escapeHtml(info.thumbnail_url)}" alt="" loading="lazy">`
    : "";
  const desc = info.description ? `<p>${escapeHtml(info.description)}</p>` : "";
  return `<div class="parley-embed parley-embed-${info.type}">${a}${thumb}<strong>${
    escapeHtml(info.title ?? link)
  }</strong></a>${desc}<small>${escapeHtml(info.provider_name ?? "")}</small></div>`;
}
