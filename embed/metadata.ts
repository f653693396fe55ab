/**
 * Reads a page's link-preview metadata (OpenGraph, Twitter cards, `<title>`, meta description,
 * oEmbed discovery) and shapes the oEmbed-style answer. The page's own markup is never passed
 * on: any `html` in the answer is built here from escaped values.
 */

/** What a page says about itself. */
export interface PageMeta {
  title?: string;
  description?: string;
  image?: string;
  siteName?: string;
  /** The discovered oEmbed JSON endpoint, absolute. */
  oembed?: string;
}

/** The embed answer, shaped like an oEmbed response. */
export interface EmbedInfo {
  type: "link" | "photo" | "video" | "rich";
  url: string;
  title?: string;
  description?: string;
  provider_name?: string;
  thumbnail_url?: string;
  html?: string;
}

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
};

/** Decodes the HTML character references found in attribute values and titles. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X"
        ? parseInt(ref.slice(2), 16)
        : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }
    return ENTITIES[ref.toLowerCase()] ?? m;
  });
}

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g;
  for (const m of tag.matchAll(re)) {
    out[m[1].toLowerCase()] = decodeEntities(m[2] ?? m[3] ?? m[4] ?? "");
  }
  return out;
}

function clean(text: string | undefined, max: number): string | undefined {
  const t = text?.replace(/\s+/g, " ").trim();
  return t ? t.slice(0, max) : undefined;
}

/** An absolute http(s) URL, or undefined (no `javascript:`, `data:` or other schemes pass). */
export function httpUrl(value: string | undefined, base: URL | string): string | undefined {
  if (!value) return undefined;
  try {
    const u = new URL(value.trim(), base);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : undefined;
  } catch {
    return undefined;
  }
}

/** Parses the head of an HTML page. */
export function parseHtml(html: string, base: URL): PageMeta {
  const headEnd = html.search(/<\/head\s*>|<body[\s>]/i);
  const head = headEnd === -1 ? html : html.slice(0, headEnd);
  const meta: Record<string, string> = {};
  let oembed: string | undefined;
  for (const m of head.matchAll(/<(meta|link)\b([^>]*)>/gi)) {
    const a = attributes(m[2]);
    if (m[1].toLowerCase() === "meta") {
      const key = (a.property ?? a.name ?? "").toLowerCase();
      if (key && a.content !== undefined && !(key in meta)) meta[key] = a.content;
    } else if (
      !oembed && /(^|\s)alternate(\s|$)/i.test(a.rel ?? "") &&
      (a.type ?? "").toLowerCase() === "application/json+oembed"
    ) {
      oembed = httpUrl(a.href, base);
    }
  }
  const title = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(head)?.[1];
  return {
    title: clean(meta["og:title"] ?? meta["twitter:title"] ?? decodeEntities(title ?? ""), 300),
    description: clean(
      meta["og:description"] ?? meta["twitter:description"] ?? meta["description"],
      1000,
    ),
    image: httpUrl(meta["og:image"] ?? meta["og:image:url"] ?? meta["twitter:image"], base),
    siteName: clean(meta["og:site_name"], 100),
    oembed,
  };
}

/** Merges an oEmbed JSON answer into the page's metadata (its `html` is ignored). */
export function mergeOembed(info: EmbedInfo, data: unknown, base: URL): EmbedInfo {
  if (!data || typeof data !== "object") return info;
  const d = data as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  const type = str(d.type);
  return {
    ...info,
    type: type === "photo" || type === "video" || type === "rich" || type === "link"
      ? type
      : info.type,
    title: clean(str(d.title), 300) ?? info.title,
    provider_name: clean(str(d.provider_name), 100) ?? info.provider_name,
    thumbnail_url: httpUrl(str(d.thumbnail_url), base) ??
      (type === "photo" ? httpUrl(str(d.url), base) : undefined) ?? info.thumbnail_url,
  };
}

/** Builds the preview card's HTML from escaped values only. */
export function cardHtml(info: EmbedInfo): string {
  const href = escapeHtml(info.url);
  const link = `href="${href}" target="_blank" rel="noopener noreferrer nofollow"`;
  if (info.type === "photo") {
    const src = escapeHtml(info.thumbnail_url ?? info.url);
    return `<a class="parley-embed-photo" ${link}><img src="${src}" alt="${
      escapeHtml(info.title ?? "")
    }" loading="lazy" referrerpolicy="no-referrer"></a>`;
  }
  const parts = [`<div class="parley-embed parley-embed-${info.type}">`];
  if (info.thumbnail_url) {
    parts.push(
      `<a ${link}><img src="${
        escapeHtml(info.thumbnail_url)
      }" alt="" loading="lazy" referrerpolicy="no-referrer"></a>`,
    );
  }
  parts.push(`<h3><a ${link}>${escapeHtml(info.title ?? info.url)}</a></h3>`);
  if (info.description) parts.push(`<p>${escapeHtml(info.description)}</p>`);
  if (info.provider_name) parts.push(`<small>${escapeHtml(info.provider_name)}</small>`);
  parts.push("</div>");
  return parts.join("");
}
