/**
 * LINE_KINDS (protocol/events.ts) is the one declaration of the kinds of line: the store's codes, the
 * client's live words and the look come from it. What the compiler cannot see is checked here:
 * the codes are stored data, and the words are keys of the dictionaries.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { LINE_KINDS } from "../../../protocol/events.ts";
import { FIRST_EVENT_CODE, TYPE_CODE, TYPES } from "../../../protocol/messages.ts";
import { loadDictionaries } from "../../../routes/i18n.ts";

const ROOT = new URL("../../..", import.meta.url).pathname;

Deno.test("line kinds: every stored code stays what history was written with", () => {
  // Rows of `messages.type` hold these numbers: a kind may be added, never renumbered.
  const stored = {
    private: 0,
    notice: 1,
    action: 2,
    error: 3,
    join: 4,
    part: 5,
    quit: 6,
    kick: 7,
    nick_change: 8,
    topic: 9,
    mode: 10,
    gap: 11,
    react: 12,
  };
  for (const [type, code] of Object.entries(stored)) {
    assertEquals(TYPE_CODE[type as keyof typeof TYPE_CODE], code, `${type} keeps code ${code}`);
  }
});

Deno.test("line kinds: codes are one per kind, messages below FIRST_EVENT_CODE, events from it", () => {
  const codes = Object.values(TYPE_CODE);
  assertEquals(new Set(codes).size, codes.length, `a code used twice: ${codes}`);
  for (const [type, kind] of Object.entries(LINE_KINDS)) {
    // History and search read `type < FIRST_EVENT_CODE` as "a message someone wrote".
    if (kind.live === "message") assert(kind.code < FIRST_EVENT_CODE, `${type} is searchable`);
    else assert(kind.code >= FIRST_EVENT_CODE, `${type} (code ${kind.code}) is a channel event`);
    assertEquals(TYPES[kind.code], type, `TYPES names code ${kind.code}`);
  }
});

Deno.test("line kinds: the words of every live line are in the dictionaries, placeholders filled", async () => {
  const { dictionaries } = await loadDictionaries(`${ROOT}i18n`);
  const en = dictionaries.get("en")!;
  for (const [type, kind] of Object.entries(LINE_KINDS)) {
    if (!("line" in kind) || kind.line === "stored") continue;
    assert(kind.line.say in en, `${type}: "${kind.line.say}" is not in en.json`);
    const holes = [...kind.line.say.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    assertEquals(holes, Object.keys(kind.line.fill).sort(), `${type} fills each placeholder`);
  }
});
