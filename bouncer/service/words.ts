/**
 * BouncerServ's words: looked up in the English dictionary (i18n/en.json), as the web client looks
 * up its own, with `{name}` placeholders filled. The listener speaks English; a text missing from
 * the dictionary is said as written (tests/unit/bouncer/service/table_test.ts keeps them all in).
 */
import en from "../../i18n/en.json" with { type: "json" };

const DICTIONARY = en as Record<string, string>;

/** The dictionary's text for `key`, with its placeholders filled from `vars`. */
export function t(key: string, vars: Record<string, string | number> = {}): string {
  const text = DICTIONARY[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (all, name: string) => name in vars ? String(vars[name]) : all);
}
