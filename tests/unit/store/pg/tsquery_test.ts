/**
 * The tsquery pieces of PostgreSQL's search (store/pg/tsquery.ts): prefixes as their whole words,
 * and the one key GIN is asked for.
 */
import { assertEquals } from "../../../support/assert.ts";
import { parseMatch } from "../../../../store/match.ts";
import { keyOf, prefixesOf, toTsquery, tsvectorOf } from "../../../../store/pg/tsquery.ts";

const shares = new Map([["the", 0.6], ["tea", 0.02]]);
const share = (w: string) => shares.get(w) ?? 0.001;

Deno.test("a message's words name its user, conversation and bucket of ids", () => {
  assertEquals(
    tsvectorOf("Tea time", { userId: 7, conversation: 3, id: 65536 * 2 + 5 }),
    "'~u7' '~c3' '~b7.2' 'tea':1 'time':2",
  );
});

Deno.test("a prefix is its whole words when they are listed, else a prefix", () => {
  const { terms } = parseMatch("tea");
  assertEquals(prefixesOf(terms), ["tea"]);
  assertEquals(
    toTsquery(terms, false, new Map([["tea", ["tea", "teapot"]]])),
    "('tea' | 'teapot')",
  );
  assertEquals(toTsquery(terms, false, new Map([["tea", []]])), "'tea'");
  assertEquals(toTsquery(terms), "'tea':*");
});

Deno.test("the key is the least common word, the others are checked on the rows", () => {
  const phrase = parseMatch('"the kettle"').terms;
  assertEquals(keyOf(phrase, share).key, "'kettle'");
  // A prefix's share is its words' together; a listed rare word beats it.
  const both = parseMatch('tea "the kettle"').terms;
  const expanded = new Map([["tea", ["tea", "teapot"]]]);
  assertEquals(keyOf(both, share, false, expanded), { key: "'kettle'", share: 0.001, words: 1 });
  assertEquals(
    keyOf(parseMatch("tea the").terms, share, false, expanded).key,
    "('tea' | 'teapot')",
  );
  // A prefix no word starts: nothing can match, the cheapest key of all.
  assertEquals(
    keyOf(parseMatch("zzz the").terms, share, false, new Map([["zzz", []]])).key,
    "'zzz'",
  );
});
