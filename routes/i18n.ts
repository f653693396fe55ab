/** getDictionary: the translations of the web client, one JSON file per language in i18n/. */
import { Hono } from "hono";
import { bind } from "../http/bind.ts";
import { join } from "node:path";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { notFound } from "../http/errors.ts";

const DIR = join(import.meta.dirname ?? ".", "..", "i18n");

/** A language's code, its own name and who translates it, as listed in `available_languages`. */
type Languages = Record<string, { name: string; language_team: string }>;

/**
 * Loads every dictionary once: `{lang: {english: translated}}`, plus the language list.
 *
 * @internal test seam
 */
export async function loadDictionaries(dir = DIR) {
  const dictionaries = new Map<string, Record<string, string>>();
  const languages: Languages = {};
  for await (const entry of Deno.readDir(dir)) {
    const m = /^([a-z]{2}(?:-[A-Za-z]{2})?)\.json$/.exec(entry.name);
    if (!m) continue;
    const data = JSON.parse(await Deno.readTextFile(join(dir, entry.name)));
    const { _language: name, _language_team: team, ...dictionary } = data as Record<
      string,
      string
    >;
    dictionaries.set(m[1], dictionary);
    languages[m[1]] = { name: name ?? m[1], language_team: team ?? name ?? m[1] };
  }
  return { dictionaries, languages };
}

let loaded: ReturnType<typeof loadDictionaries> | undefined;

/** The shipped dictionaries, read once (the first time anything asks for them). */
export function dictionaries(): ReturnType<typeof loadDictionaries> {
  return loaded ??= loadDictionaries();
}

/** The router for `GET /i18n/:lang`. */
export function i18nRoutes(_deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  bind(app, "getDictionary", async (c) => {
    const { dictionaries: all, languages } = await dictionaries();
    const dictionary = all.get(c.req.param("lang"));
    if (!dictionary) throw notFound("No such language.");
    c.header("Cache-Control", "public, max-age=86400");
    return c.json({ dictionary, available_languages: languages });
  });
  return app;
}
