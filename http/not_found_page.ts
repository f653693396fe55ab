/**
 * What a browser that opens an address Parley has no page for is shown: a page saying so with a
 * link into the app, where a script gets the API's error body. A person who typed or kept a wrong
 * address (`/notifications` for `/chat/notifications`) would otherwise read raw JSON. It speaks
 * the browser's language (`Accept-Language`) when the web client's dictionaries have it, as the
 * web client does until the user picks another.
 */
import type { Context } from "hono";

/**
 * The first language of an `Accept-Language` header that `available` has (by its whole tag, then
 * by its primary language: `de-AT` is `de`), else English.
 */
function chooseLanguage(header: string | undefined, available: ReadonlySet<string>): string {
  const wanted = (header ?? "").split(",").slice(0, 20).map((part, i) => {
    const [tag = "", ...params] = part.trim().split(";");
    const q = Number(params.find((p) => p.trim().startsWith("q="))?.trim().slice(2) ?? 1);
    return { tag: tag.trim().toLowerCase(), q: Number.isFinite(q) ? q : 0, i };
  }).filter((w) => w.tag && w.q > 0).sort((a, b) => b.q - a.q || a.i - b.i);
  const codes = new Map([...available].map((code) => [code.toLowerCase(), code]));
  for (const { tag } of wanted) {
    const code = codes.get(tag) ?? codes.get(tag.split("-")[0]);
    if (code) return code;
  }
  return "en";
}

/** Whether the request is a browser opening a page (not a script, a fetch or an image). */
export function opensPage(c: Context): boolean {
  if (c.req.method !== "GET" && c.req.method !== "HEAD") return false;
  const mode = c.req.header("sec-fetch-mode");
  if (mode !== undefined) return mode === "navigate";
  // Over plain HTTP to another host a browser sends no Sec-Fetch-*: its navigations ask for HTML.
  return (c.req.header("accept") ?? "").includes("text/html");
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * The page, its link to the app under `base` (the base URL's path, "" at the root), in the
 * language of `all` (the web client's dictionaries, by code) the browser asks for first.
 */
export function notFoundPage(
  c: Context,
  base: string,
  all: ReadonlyMap<string, Record<string, string>>,
): Response {
  const lang = chooseLanguage(c.req.header("accept-language"), new Set(all.keys()));
  const words = all.get(lang) ?? {};
  const t = (text: string) => escapeHtml(words[text] || text);
  // No script, nothing from elsewhere; only the page's own style attribute.
  c.header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'");
  c.header("X-Frame-Options", "DENY");
  c.header("Content-Language", lang);
  c.header("Vary", "Accept-Language");
  return c.html(
    `<!doctype html>
<html lang="${escapeHtml(lang)}">
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t("Page not found")} - Parley</title>
<body style="font-family: system-ui, sans-serif; max-width: 32em; margin: 4em auto; padding: 0 1em">
<h1>${t("Page not found")}</h1>
<p>${t("Parley has no page at this address.")}</p>
<p><a href="${escapeHtml(base)}/">${t("Open Parley")}</a></p>
</body>
</html>
`,
    404,
  );
}
