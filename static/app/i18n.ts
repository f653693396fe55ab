/** Translations: `t` looks English text up in the loaded dictionary and fills placeholders. */
import { signal } from "@preact/signals";
import { at } from "./base.ts";

/**
 * The current dictionary: English text -> translated text.
 *
 * @internal test seam
 */
export const dictionary = signal<Record<string, string>>({});
/** The current language code. */
export const language = signal("en");
/** The languages the server offers, code -> own name. */
export const languages = signal<Record<string, { name: string }>>({ en: { name: "English" } });

/** Translates `text` and fills `{placeholders}`; reading the signal re-renders on change. */
export function t(text: string, vars?: Record<string, string | number>): string {
  const out = dictionary.value[text] || text;
  if (!vars) return out;
  return out.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
}

/** The language to use: the saved choice, else the browser's first supported one, else English. */
export function preferredLanguage(): string {
  const saved = localStorage.getItem("parley.language");
  if (saved) return saved;
  for (const l of navigator.languages ?? [navigator.language]) {
    const code = l.toLowerCase().split("-")[0];
    if (code) return code;
  }
  return "en";
}

/** Loads the dictionary of `lang` (falling back to English when the server lacks it). */
export async function loadLanguage(lang: string): Promise<void> {
  let res = await fetch(at(`/api/i18n/${encodeURIComponent(lang)}`)).catch(() => null);
  if (!res || !res.ok) {
    lang = "en";
    res = await fetch(at("/api/i18n/en")).catch(() => null);
  }
  if (!res || !res.ok) return;
  const data = await res.json();
  dictionary.value = data.dictionary ?? {};
  languages.value = data.available_languages ?? languages.value;
  language.value = lang;
  document.documentElement.lang = lang;
}

/** Saves the user's choice of language and loads it. */
export async function chooseLanguage(lang: string): Promise<void> {
  localStorage.setItem("parley.language", lang);
  await loadLanguage(lang);
}
