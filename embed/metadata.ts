/**
 * Link metadata: OpenGraph, Twitter card and oEmbed discovery from a page's HTML, merged with an
 * oEmbed answer into one oEmbed-style result. Nothing of the page's markup is kept: the `html` of a
 * result is built here from escaped values only.
 */

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

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  ndash: "–",
  mdash: "—",
  hellip: "…",
  laquo: "«",
  raquo: "»",
  copy: "©",
  reg: "®",
  rsquo: "’",
  lsquo: "‘",
  rdquo: "”",
  ldquo: "“",
};

/** Decodes the HTML character references of an attribute value or text. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X"
        ? parseInt(ref.slice(2), 16)
        : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/** Escapes text for HTML content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function clean(text: string | undefined, max: number): string | undefined {
  if (text === undefined) return undefined;
  const t = decodeEntities(text).replace(/\s+/g, " ").trim();
  if (!t) return undefined;
  return t.length > max ? t.slice(0, max - 1) + "…" : t;
}

/** An absolute http(s) URL made from `value` relative to `base`, or undefined. */
export function httpUrl(value: string | undefined, base: URL): string | undefined {
  if (!value) return undefined;
  try {
    const u = new URL(decodeEntities(value.trim()), base);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : undefined;
  } catch {
    return undefined;
  }
}

function attributes(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /([^\s"'=<>\/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
  for (const m of text.matchAll(re)) {
    const name = m[1].toLowerCase();
    if (!out.has(name)) out.set(name, m[2] ?? m[3] ?? m[4] ?? "");
  }
  return out;
}

/** Reads the title, OpenGraph and Twitter card tags and the oEmbed link of a page. */
export function parseHtml(html: string, base: URL): PageMeta {
  const meta = new Map<string, string>();
  let oembed: string | undefined;
  // Comments and scripts could hold tag-like text that is not markup.
  const text = html.replace(/<!--[\s\S]*?-->/g, "").replace(
    /<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi,
    "",
  );
  for (const m of text.matchAll(/<(meta|link)\b([^>]*)>/gi)) {
    const attrs = attributes(m[2]);
    if (m[1].toLowerCase() === "meta") {
      const key = (attrs.get("property") ?? attrs.get("name") ?? "").toLowerCase();
      const content = attrs.get("content");
      if (key && content !== undefined && !meta.has(key)) meta.set(key, content);
    } else if (
      !oembed && /\balternate\b/i.test(attrs.get("rel") ?? "") &&
      (attrs.get("type") ?? "").toLowerCase() === "application/json+oembed"
    ) {
      oembed = httpUrl(attrs.get("href"), base);
    }
  }
  const title = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(text)?.[1];
  const pick = (...keys: string[]) => keys.map((k) => meta.get(k)).find((v) => v?.trim());
  return {
    title: clean(pick("og:title", "twitter:title") ?? title, 300),
    description: clean(pick("og:description", "twitter:description", "description"), 1000),
    image: httpUrl(
      pick("og:image:secure_url", "og:image", "og:image:url", "twitter:image", "twitter:image:src"),
      base,
    ),
    siteName: clean(pick("og:site_name", "application-name"), 200),
    url: httpUrl(pick("og:url"), base),
    ogType: pick("og:type")?.toLowerCase(),
    oembed,
  };
}

/** The charset a page's bytes are in: from the Content-Type header, else a `<meta>` near the top. */
export function charsetOf(contentType: string, bytes: Uint8Array): string {
  const header = /charset=["']?([\w.:-]+)/i.exec(contentType)?.[1];
  if (header) return header;
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 2048));
  return /<meta[^>]+charset=["']?([\w.:-]+)/i.exec(head)?.[1] ?? "utf-8";
}

/** Decodes bytes in a charset, falling back to UTF-8 for unknown labels. */
export function decodeText(bytes: Uint8Array, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
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
