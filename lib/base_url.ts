/**
 * Addresses under Parley's base URL. The base may be given with or without its final slash
 * (`https://example.org/parley` or `.../parley/`); a relative path resolved against the first
 * would replace `parley`, so it is resolved against the folder the base names.
 */

/** `path` (relative, no leading slash) under `base`. */
export function underBaseUrl(base: URL, path: string): URL {
  return new URL(path, base.href.endsWith("/") ? base.href : `${base.href}/`);
}
