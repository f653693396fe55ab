/**
 * What a browser that opens an address Parley has no page for is shown: a page saying so with a
 * link into the app, where a script gets the API's error body. A person who typed or kept a wrong
 * address (`/notifications` for `/chat/notifications`) would otherwise read raw JSON.
 */
import type { Context } from "hono";

/** Whether the request is a browser opening a page (not a script, a fetch or an image). */
export function opensPage(c: Context): boolean {
  if (c.req.method !== "GET" && c.req.method !== "HEAD") return false;
  const mode = c.req.header("sec-fetch-mode");
  if (mode !== undefined) return mode === "navigate";
  // Over plain HTTP to another host a browser sends no Sec-Fetch-*: its navigations ask for HTML.
  return (c.req.header("accept") ?? "").includes("text/html");
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** The page, its link to the app under `base` (the base URL's path, "" at the root). */
export function notFoundPage(c: Context, base: string): Response {
  // No script, nothing from elsewhere; only the page's own style attribute.
  c.header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'");
  c.header("X-Frame-Options", "DENY");
  return c.html(
    `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Page not found - Parley</title>
<body style="font-family: system-ui, sans-serif; max-width: 32em; margin: 4em auto; padding: 0 1em">
<h1>Page not found</h1>
<p>Parley has no page at this address.</p>
<p><a href="${escapeHtml(base)}/">Open Parley</a></p>
</body>
</html>
`,
    404,
  );
}
