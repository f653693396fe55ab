/**
 * Parley under a path of a host name (`PARLEY_BASE_URL=https://example.com/parley/`): a reverse
 * proxy may pass requests on with the path (`/parley/api/user`) or without it (`/api/user`), and
 * both are answered; every link and asset URL Parley writes starts with it.
 */

/**
 * The first segments of the paths Parley answers at its own root: routes and static files. A base
 * path may not start with one, or a request passed on without the path could be read as one with
 * it (`/api/user` under a base of `/api`).
 *
 * @internal test seam
 */
export const ROOT_SEGMENTS = new Set([
  "api",
  "app",
  "app.css",
  "chat",
  "dist",
  "events",
  "file",
  "healthz",
  "icon.svg",
  "index.html",
  "irc",
  "login",
  "logout",
  "manifest.webmanifest",
  "metrics",
  "readyz",
  "register",
  "settings",
  "socket",
  "sw",
  "sw.js",
]);

/** The path of the base URL without its trailing slash: `/parley`, or `` at a host's root. */
export function basePath(baseUrl: URL): string {
  return baseUrl.pathname.replace(/\/+$/, "");
}

/** Why `path` cannot be a base path, or undefined when it can. */
export function basePathRefusal(path: string): string | undefined {
  const first = path.split("/")[1];
  if (first !== undefined && ROOT_SEGMENTS.has(first)) {
    return `its path may not start with /${first}, a path Parley answers itself`;
  }
  return undefined;
}

/**
 * `path` (a request's, from its first slash, without the query) with the base path taken off when
 * it starts with it as a whole segment.
 */
export function withinBase(path: string, base: string): string {
  if (!base || !path.startsWith(base)) return path;
  const rest = path.slice(base.length);
  if (rest === "") return "/";
  return rest[0] === "/" ? rest : path;
}
