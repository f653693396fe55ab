import { assert, assertEquals } from "../support/assert.ts";
import { loadDictionaries } from "../../routes/i18n.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

/** Every literal passed to `t(...)` in the client's sources. */
async function translatedStrings(): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(path);
      else if (/\.tsx?$/.test(e.name)) {
        const text = await Deno.readTextFile(path);
        for (const m of text.matchAll(/\bt\(\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')/g)) {
          const literal = m[1].startsWith("'")
            ? m[1].slice(1, -1).replace(/\\'/g, "'").replace(/\\\\/g, "\\")
            : JSON.parse(m[1]);
          found.set(literal, path.slice(ROOT.length));
        }
      }
    }
  };
  await walk(`${ROOT}static/app`);
  return found;
}

Deno.test("i18n: every language has every key of en.json, with the same placeholders", async () => {
  const { dictionaries, languages } = await loadDictionaries(`${ROOT}i18n`);
  const en = dictionaries.get("en")!;
  assert(Object.keys(en).length > 100, "en.json has the client's strings");
  assert(dictionaries.size >= 4, "English plus at least three languages ship");
  for (const [lang, dict] of dictionaries) {
    assert(languages[lang].name.length > 1, `${lang} names itself`);
    for (const [key, english] of Object.entries(en)) {
      assertEquals(english, key, "en.json maps each text to itself");
      assert(typeof dict[key] === "string" && dict[key].length > 0, `${lang}.json lacks "${key}"`);
      const vars = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort().join(",");
      assertEquals(vars(dict[key]), vars(key), `${lang}.json keeps the placeholders of "${key}"`);
    }
    for (const key of Object.keys(dict)) {
      assert(key in en, `${lang}.json has "${key}" that en lacks`);
    }
  }
});

Deno.test("i18n: every string the client translates is in en.json", async () => {
  const { dictionaries } = await loadDictionaries(`${ROOT}i18n`);
  const en = dictionaries.get("en")!;
  const strings = await translatedStrings();
  assert(strings.size > 100, "the scanner finds the client's strings");
  for (const [text, file] of strings) assert(text in en, `"${text}" (${file}) is not in en.json`);
});

Deno.test("i18n: German speaks to the user one way (du), never also as Sie", async () => {
  const de = JSON.parse(await Deno.readTextFile(`${ROOT}i18n/de.json`)) as Record<string, string>;
  const formal = Object.entries(de).filter(([en, text]) =>
    // "Ihre" is also "their": a sentence about others says so in its English.
    /\b(Sie|Ihnen|Ihr|Ihre|Ihren|Ihrem|Ihrer|Ihres)\b/.test(text) && !/^Their\b/.test(en)
  );
  assertEquals(formal, []);
});
