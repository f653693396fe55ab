/** Convos 8.07 t/web-i18n.t ported: getDictionary. */
import { compatServer, jsonIs, jsonLike, statusIs } from "../support/compat.ts";

Deno.test("web-i18n.t", async () => {
  const server = await compatServer();
  const api = server.client();
  try {
    // LEFT OUT web-i18n.t:10-11, 19-20, 24-25, 32-35, 43-44, 52-54 (html): the page's lang
    // attribute and loading text chosen from Accept-Language.
    let res = await api.get("/api/i18n/en.json");
    statusIs("web-i18n.t:12", res, 200);
    // web-i18n.t:13-14 adapted (branding): Convos's values carry its translators' convos.chat
    // addresses; the field and the language's own name are what a client shows.
    jsonLike("web-i18n.t:13", res, "/available_languages/en/language_team", /^English\b/);
    jsonLike("web-i18n.t:14", res, "/available_languages/es/language_team", /^Español\b/);
    // LEFT OUT web-i18n.t:15-17 (design): Italian, Norwegian and Romanian are Convos's
    // translations; Parley ships English, German, Spanish and French (docs/api.md: English plus at
    // least three).
    // LEFT OUT web-i18n.t:18, 28, 39, 47, 58 (branding): the words of Convos's own client
    // ("Autocomplete", "User email"), not in Parley's dictionaries.

    res = await api.get("/api/i18n/es.json");
    statusIs("web-i18n.t:45", res, 200);
    jsonIs("web-i18n.t:46", res, "/dictionary/", undefined);
    // LEFT OUT web-i18n.t:26-27, 37-38, 56-57 (design): it, no and ro are not shipped (above).
    // LEFT OUT web-i18n.t:62-66 (perl internals): a Mojolicious helper counts reloads.
  } finally {
    await server.close();
  }
});
