/** irc/chat/highlight.ts: what highlights the user. */
import { assert } from "../../../support/assert.ts";
import { isHighlight } from "../../../../irc/chat/highlight.ts";

Deno.test("highlights: the nick or a keyword as a whole word, any private message", () => {
  const mentions = (text: string, nick: string) =>
    isHighlight({ text, nick, keywords: [], isPrivate: false });
  assert(mentions("alice: hi", "alice"));
  assert(mentions("hi ALICE!", "alice"));
  assert(mentions("ping @alice.", "alice"));
  assert(!mentions("malice is not a mention", "alice"));
  assert(!mentions("alice_ is someone else", "alice"));
  assert(mentions("[bot] ready", "[bot]"));
  const base = { nick: "alice", keywords: ["deploy"], isPrivate: false };
  assert(isHighlight({ ...base, text: "Deploy done" }));
  assert(!isHighlight({ ...base, text: "redeployed" }));
  assert(!isHighlight({ ...base, text: "hello all" }));
  assert(isHighlight({ ...base, text: "hello all", isPrivate: true }));
});
