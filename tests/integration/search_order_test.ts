/**
 * Search across conversations lists the newest first by the messages' times, whatever order they
 * were stored in, and walking the pages with `before` misses and repeats nothing, on every backend.
 */
import { parseMicros } from "../../protocol/time.ts";
import { assertEquals } from "../support/assert.ts";
import { type Backend, forEachBackend } from "../support/backends.ts";
import type { MessagePage } from "../../protocol/messages.ts";
import type { SearchQuery } from "../../store/message_types.ts";

const T0 = Date.UTC(2026, 0, 1) * 1000;
const S = 1_000_000;

/** Every page of a search, walked with `before`, as one list of texts. */
async function walk(b: Backend, userId: number, q: Omit<SearchQuery, "limit">, limit: number) {
  const seen: string[] = [];
  let before: number | undefined;
  for (let guard = 0; guard < 50; guard++) {
    const page: MessagePage = await b.messages.search!.forUser(userId, { ...q, limit, before });
    seen.push(...page.messages.map((m) => m.message));
    if (page.end || !page.before) break;
    before = parseMicros(page.before)!;
  }
  return seen;
}

forEachBackend("search: newest first across conversations, paged without gaps", async (b, t) => {
  const userId = await b.user("u@example.com");
  const conn = await b.connection(userId, "irc-localhost");
  const first = await b.conversation(conn, "#first");
  const second = await b.conversation(conn, "#second");
  const add = (conversation: number, text: string, ts: number) =>
    b.messages.append({ conversation, userId, from: "alice", type: "private", text, ts });
  // Stored in this order; their times say otherwise: a replayed older line, a line of another
  // conversation at the same instant as one of the first, chatter that matches nothing.
  add(first, "rollout one", T0 + 10 * S);
  add(first, "rollout two", T0 + 20 * S);
  add(first, "rollout three", T0 + 30 * S);
  for (let i = 0; i < 20; i++) add(first, `chatter ${i}`, T0 + (31 + i) * S);
  add(second, "rollout second late", T0 + 25 * S);
  add(second, "rollout second replayed", T0 + 5 * S);
  add(second, "rollout same instant", T0 + 30 * S);
  add(first, "rollout imported", T0 + 1 * S);
  await b.searchable();
  const newestFirst = [
    "rollout same instant",
    "rollout three",
    "rollout second late",
    "rollout two",
    "rollout one",
    "rollout second replayed",
    "rollout imported",
  ];

  await t.step("one page holds them newest first", async () => {
    const page = await b.messages.search!.forUser(userId, { match: "rollout", limit: 60 });
    assertEquals(page.messages.map((m) => m.message), newestFirst);
    assertEquals(page.end, true);
  });

  await t.step("every page size walks each once, in order", async () => {
    for (let limit = 1; limit <= 8; limit++) {
      assertEquals(
        await walk(b, userId, { match: "rollout" }, limit),
        newestFirst,
        `limit ${limit}`,
      );
    }
  });

  await t.step("without words (a sender only) the same order holds", async () => {
    const all = [
      ...Array.from({ length: 20 }, (_, i) => `chatter ${19 - i}`),
      ...newestFirst.slice(0, 2),
    ];
    for (const limit of [1, 3, 7, 60]) {
      const seen = await walk(b, userId, { from: "alice" }, limit);
      assertEquals(seen.slice(0, 22), all, `limit ${limit}`);
      assertEquals(seen.length, 27, `limit ${limit}`);
      assertEquals(new Set(seen).size, 27, `limit ${limit}`);
    }
  });
});

forEachBackend(
  "search: a word of only combining marks finds nothing, never an error",
  async (b) => {
    const userId = await b.user("u@example.com");
    const conn = await b.connection(userId, "irc-localhost");
    const chan = await b.conversation(conn, "#chan");
    b.messages.append({
      conversation: chan,
      userId,
      from: "alice",
      type: "private",
      text: "cafe\u0301 au lait",
      ts: T0,
    });
    await b.searchable();
    // An acute accent alone (U+0301), and two marks with a real word beside them.
    for (const match of ["\u0301", "\u0301\u0308", '"\u0301"']) {
      const page = await b.messages.search!.forUser(userId, { match, limit: 10 });
      assertEquals(page, { messages: [], end: true }, JSON.stringify(match));
      const history = await b.messages.search!.inConversation(chan, match, { limit: 10 });
      assertEquals(history.messages, [], JSON.stringify(match));
    }
    const found = await b.messages.search!.forUser(userId, {
      match: "caf\u0301 \u0301",
      limit: 10,
    });
    assertEquals(found.messages.map((m) => m.message), ["cafe\u0301 au lait"]);
  },
);
