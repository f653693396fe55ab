/**
 * The message store's rules, the same for every backend (tests/support/backends.ts): unique
 * timestamps, paging, unread counts, bounds on hostile input, and the `match` language of search.
 */
import { nowMicros } from "../../lib/time.ts";
import { parseMicros } from "../../protocol/time.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { type Backend, forEachBackend } from "../support/backends.ts";
import type { MessageJson } from "../../protocol/messages.ts";

/** Two users; the first has #test and #other, the second a #test of their own. */
async function fixture(b: Backend) {
  const userId = await b.user("u@example.com");
  const otherId = await b.user("o@example.com");
  const mine = await b.connection(userId, "irc-localhost");
  const theirs = await b.connection(otherId, "irc-localhost");
  return {
    userId,
    otherId,
    test: await b.conversation(mine, "#test"),
    other: await b.conversation(mine, "#other"),
    foreign: await b.conversation(theirs, "#test"),
  };
}

const T0 = Date.UTC(2026, 0, 1) * 1000;
const texts = (page: { messages: MessageJson[] }) => page.messages.map((m) => m.message);

forEachBackend(
  "message store: timestamps are unique and paging walks every message once",
  async (b, t) => {
    const f = await fixture(b);
    // 300 messages: runs of ten share one timestamp, as a fast channel in one second would.
    for (let i = 0; i < 300; i++) {
      b.messages.append({
        conversation: f.test,
        userId: f.userId,
        from: "alice",
        type: "private",
        text: `message ${i}`,
        ts: T0 + Math.floor(i / 10) * 1_000_000,
      });
    }
    await b.messages.flush();

    await t.step(
      "the newest page comes first, oldest message first, with a before cursor",
      async () => {
        const page = await b.messages.historyOf(f.test, { limit: 60 });
        assertEquals(page.messages.length, 60);
        assertEquals(page.messages[0].message, "message 240");
        assertEquals(page.messages[59].message, "message 299");
        assert(page.before !== undefined);
        assertEquals(page.after, undefined, "nothing is newer");
        const ts = page.messages.map((m) => parseMicros(m.ts)!);
        for (let i = 1; i < ts.length; i++) assert(ts[i] > ts[i - 1], "strictly increasing");
      },
    );

    await t.step("walking back with before returns each message exactly once", async () => {
      const seen: string[] = [];
      let before: number | undefined;
      for (let guard = 0; guard < 20; guard++) {
        const page = await b.messages.historyOf(f.test, { limit: 47, before });
        seen.unshift(...texts(page));
        if (!page.before) break;
        before = parseMicros(page.before)!;
      }
      assertEquals(seen, Array.from({ length: 300 }, (_, i) => `message ${i}`));
    });

    await t.step("walking forward with after returns each message exactly once", async () => {
      const seen: string[] = [];
      let after = T0 - 1;
      for (let guard = 0; guard < 20; guard++) {
        const page = await b.messages.historyOf(f.test, { limit: 33, after });
        seen.push(...texts(page));
        if (!page.after) break;
        after = parseMicros(page.after)!;
      }
      assertEquals(seen, Array.from({ length: 300 }, (_, i) => `message ${i}`));
    });

    await t.step("around returns older and newer-or-equal messages with both cursors", async () => {
      const middle = await b.messages.historyOf(f.test, {
        limit: 1,
        after: T0 + 15_000_000 - 1,
      });
      const at = parseMicros(middle.messages[0].ts)!;
      assertEquals(middle.messages[0].message, "message 150");
      const page = await b.messages.historyOf(f.test, { limit: 5, around: at });
      assertEquals(
        texts(page),
        [145, 146, 147, 148, 149, 150, 151, 152, 153, 154].map((i) => `message ${i}`),
      );
      assert(page.before && page.after);
    });

    await t.step("a conversation's history holds only its own messages", async () => {
      const page = await b.messages.historyOf(f.other, { limit: 60 });
      assertEquals(page.messages, []);
      assertEquals(page.before, undefined);
    });
  },
);

forEachBackend("message store: match and search follow the same rules", async (b, t) => {
  const f = await fixture(b);
  // A millisecond apart, as messages arrive: a conversation's timestamps are unique at
  // millisecond resolution, so faster appends would be spread ahead per conversation and
  // "newest first" across conversations would depend on the spread.
  let at = nowMicros();
  const add = (
    conversation: number,
    userId: number,
    from: string,
    text: string,
    highlight = false,
  ) =>
    b.messages.append({
      conversation,
      userId,
      from,
      type: "private",
      text,
      highlight,
      ts: at += 1000,
    });
  add(f.test, f.userId, "alice", "we deploy on friday");
  add(f.test, f.userId, "bob", "the redeploy failed");
  add(f.test, f.userId, "alice", "my secretary knows");
  add(f.test, f.userId, "carol", "keep the secret safe, me");
  add(f.test, f.userId, "carol", "safe secret order matters", true);
  add(f.other, f.userId, "Dave", "deployment notes in #other");
  add(f.other, f.userId, "dave", "café au lait", true);
  add(f.foreign, f.otherId, "eve", "deploy secrets of another user", true);
  await b.searchable();
  const search = async (match: string, extra = {}) =>
    texts(await b.messages.search.forUser(f.userId, { match, limit: 60, ...extra }));

  await t.step("a word matches the start of words, not their middle", async () => {
    assertEquals(await search("deplo"), ["deployment notes in #other", "we deploy on friday"]);
    assertEquals(await search("DEPLOY friday"), ["we deploy on friday"]);
  });

  await t.step("quoted words match whole words in order", async () => {
    assertEquals(await search('"secret"'), [
      "safe secret order matters",
      "keep the secret safe, me",
    ]);
    assertEquals(await search('"secret safe"'), ["keep the secret safe, me"]);
    assertEquals(await search("secret"), [
      "safe secret order matters",
      "keep the secret safe, me",
      "my secretary knows",
    ]);
  });

  await t.step("#name restricts to a conversation and @nick to a sender", async () => {
    assertEquals(await search("deplo #other"), ["deployment notes in #other"]);
    assertEquals(await search("deplo #TEST"), ["we deploy on friday"]);
    assertEquals(await search("@carol"), [
      "safe secret order matters",
      "keep the secret safe, me",
    ]);
    assertEquals(await search("@DAVE"), ["café au lait", "deployment notes in #other"]);
    assertEquals(await search("secret", { from: "carol" }), [
      "safe secret order matters",
      "keep the secret safe, me",
    ]);
    assertEquals(await search("deplo", { conversationId: "#test" }), ["we deploy on friday"]);
    assertEquals(await search("deplo", { connectionId: "irc-nope" }), []);
  });

  await t.step("diacritics and case fold; short words match whole words", async () => {
    assertEquals(await search("cafe"), ["café au lait"]);
    assertEquals(await search("me"), ["keep the secret safe, me"]);
  });

  await t.step(
    "results carry their connection and conversation, newest first, and end",
    async () => {
      const page = await b.messages.search.forUser(f.userId, { match: "secret", limit: 2 });
      assertEquals(page.messages.map((m) => m.conversation_id), ["#test", "#test"]);
      assertEquals(page.messages[0].connection_id, "irc-localhost");
      assertEquals(page.end, false);
      const rest = await b.messages.search.forUser(f.userId, {
        match: "secret",
        limit: 2,
        before: parseMicros(page.before!)!,
      });
      assertEquals(texts(rest), ["my secretary knows"]);
      assertEquals(rest.end, true);
    },
  );

  await t.step("another user's messages never appear", async () => {
    assertEquals(await search("another"), []);
    assertEquals((await search("deplo")).length, 2);
  });

  await t.step("no criteria or nothing searchable finds nothing", async () => {
    assertEquals(await search(""), []);
    assertEquals(await search("*** ---"), []);
  });

  await t.step("hostile input never reaches FTS5 as syntax", async () => {
    for (
      const evil of [
        '"',
        '"""',
        "*",
        "NEAR(",
        "NEAR(a b)",
        "AND",
        "OR",
        "NOT",
        "a OR b",
        "-",
        "^",
        "(",
        ")",
        ":",
        "text:x",
        '"unbalanced',
        "a\u0000b",
        "@a\u0000b",
        "x ".repeat(500_000),
      ]
    ) {
      const page = await b.messages.search.forUser(f.userId, { match: evil, limit: 10 });
      assert(Array.isArray(page.messages), evil.slice(0, 20));
      const hist = await b.messages.search.inConversation(f.test, evil, { limit: 10 });
      assert(Array.isArray(hist.messages), evil.slice(0, 20));
    }
    assertEquals(await search("AND"), [], "operators are words");
  });

  await t.step("match filters a conversation's history with the same rules", async () => {
    const page = await b.messages.search.inConversation(f.test, "secret", { limit: 60 });
    assertEquals(texts(page), [
      "my secretary knows",
      "keep the secret safe, me",
      "safe secret order matters",
    ]);
    const quoted = await b.messages.search.inConversation(f.test, '"secret"', {
      limit: 60,
    });
    assertEquals(quoted.messages.length, 2);
  });

  await t.step(
    "clearing a conversation removes its messages from history and search",
    async () => {
      await b.messages.clear(f.other);
      assertEquals((await b.messages.historyOf(f.other, { limit: 60 })).messages, []);
      assertEquals(await search("deplo"), ["we deploy on friday"]);
    },
  );
});

forEachBackend(
  "message store: timestamps out of range are replaced, and finding a free one is bounded",
  async (b) => {
    const u = await b.user("a@example.com");
    const conv = await b.conversation(await b.connection(u, "irc-x"), "eve");
    const add = async (ts: number) =>
      (await b.messages.append({
        conversation: conv,
        userId: u,
        from: "eve",
        type: "private",
        text: "x",
        ts,
        highlight: false,
      })).ts;
    const before = nowMicros();
    const year3100 = Date.UTC(3100, 0, 1) * 1000;
    const year1000 = Date.UTC(1000, 0, 1) * 1000;
    const got = [];
    for (const ts of [year3100, year3100, year1000, year1000, NaN, 2 ** 60, -1]) {
      got.push(await add(ts));
    }
    for (const ts of got) {
      // Each message owns its millisecond: seven at once are spread up to seven ms ahead.
      assert(
        Number.isSafeInteger(ts) && ts >= before - 1000 && ts <= nowMicros() + got.length * 1000,
        String(ts),
      );
    }
    assertEquals(new Set(got).size, got.length);
    // An old moment already crowded with messages: the search stops and files the next one last.
    const old = before - 60_000_000;
    for (let i = 0; i < 101; i++) await add(old);
    const crowded = await add(old);
    assert(
      crowded > old + 101 * 1000,
      `the search for a free millisecond is bounded ${crowded - old}`,
    );
    const page = await b.messages.historyOf(conv, { limit: 10 });
    assertEquals(page.messages.length, 10);
    // A stored text is capped too, never cutting a character in half.
    b.messages.append({
      conversation: conv,
      userId: u,
      from: "eve",
      type: "private",
      text: "a" + "😀".repeat(50_000),
      highlight: false,
    });
    const [last] = (await b.messages.historyOf(conv, { limit: 1 })).messages;
    assertEquals(last.message.length, 9_999);
    assert(last.message.endsWith("😀"));
  },
);

forEachBackend("message store: unread counts and replayed messages", async (b, t) => {
  const u = await b.user("a@example.com");
  const conn = await b.connection(u, "irc-x");
  const chan = await b.conversation(conn, "#chan");
  const quiet = await b.conversation(conn, "#quiet");
  const add = (conversation: number, text: string, ts?: number, unread = true) =>
    b.messages.append({ conversation, userId: u, from: "bob", type: "private", text, ts, unread });

  await t.step("each unread message answers with its conversation's count", async () => {
    const counts = [];
    for (let i = 0; i < 5; i++) counts.push((await add(chan, `m${i}`)).unread);
    assertEquals(counts, [1, 2, 3, 4, 5]);
    assertEquals((await add(chan, "read", undefined, false)).unread, undefined);
    assertEquals((await add(quiet, "q")).unread, 1);
    await b.messages.flush();
    assertEquals(await b.unread(chan), 5);
    assertEquals(await b.unread(quiet), 1);
  });

  await t.step("counts stay exact across write batches", async () => {
    const other = await b.conversation(conn, "#busy");
    const got = await Promise.all(Array.from({ length: 1500 }, (_, i) => add(other, `b${i}`)));
    assertEquals(got.map((a) => a.unread), Array.from({ length: 1500 }, (_, i) => i + 1));
    assertEquals((await add(other, "one more")).unread, 1501);
    await b.messages.flush();
    assertEquals(await b.unread(other), 1501);
  });

  await t.step("a replayed older message keeps its own free millisecond", async () => {
    const now = nowMicros();
    const old = now - (now % 1000) - 3_600_000_000; // an hour ago: a replay, not a burst
    const first = await add(quiet, "old 1", old + 123);
    const second = await add(quiet, "old 2", old + 456);
    assertEquals(first.ts, old);
    assertEquals(second.ts, first.ts + 1000, "the same millisecond is taken: the next one");
    const page = await b.messages.historyOf(quiet, { limit: 10 });
    assertEquals(texts(page), ["old 1", "old 2", "q"]);
  });

  await t.step(
    "a burst at one moment is spread a millisecond apart, in arrival order",
    async () => {
      const at = nowMicros() + 10_000_000;
      const got = [];
      for (let i = 0; i < 4; i++) got.push((await add(chan, `burst ${i}`, at, false)).ts);
      const base = at - (at % 1000);
      assertEquals(got, [base, base + 1000, base + 2000, base + 3000]);
    },
  );

  await t.step("clear empties the conversation", async () => {
    await b.messages.clear(chan);
    assertEquals((await b.messages.historyOf(chan, { limit: 10 })).messages, []);
    assertEquals((await b.messages.historyOf(quiet, { limit: 10 })).messages.length, 3);
  });
});

forEachBackend(
  "message store: short words, non-Latin words and event types in search",
  async (b, t) => {
    const u = await b.user("a@example.com");
    const conn = await b.connection(u, "irc-x");
    const chan = await b.conversation(conn, "#chan");
    let at = nowMicros();
    const add = (from: string, text: string, type: "private" | "join" | "action" = "private") =>
      b.messages.append({ conversation: chan, userId: u, from, type, text, ts: at += 1000 });
    add("bob", "62 toys in the box");
    add("bob", "Ünïcode 日本語 text, ÉLAN vital");
    add("carol", "6 of them");
    add("bob", "joined the toys", "join");
    add("bob", "waves at the toys", "action");
    await b.searchable();
    const search = async (match: string) =>
      texts(await b.messages.search.forUser(u, { match, limit: 10 }));

    await t.step("a short word is whole alone, a prefix when a sender narrows", async () => {
      assertEquals(await search("6"), ["6 of them"]);
      assertEquals(await search("6 @bob"), ["62 toys in the box"]);
      assertEquals(await search("6 #chan"), ["6 of them", "62 toys in the box"]);
    });

    await t.step("letters beyond ASCII are words, folded", async () => {
      assertEquals(await search("unicode"), ["Ünïcode 日本語 text, ÉLAN vital"]);
      assertEquals(await search("日本語"), ["Ünïcode 日本語 text, ÉLAN vital"]);
      assertEquals(await search('"elan vital"'), ["Ünïcode 日本語 text, ÉLAN vital"]);
      assertEquals(await search('"vital elan"'), [], "a phrase keeps its order");
    });

    await t.step(
      "a channel event is not matched in its conversation's history either",
      async () => {
        const page = await b.messages.search.inConversation(chan, "toys", { limit: 10 });
        assertEquals(texts(page).sort(), ["62 toys in the box", "waves at the toys"]);
      },
    );

    await t.step("a NUL in a message or a sender does not lose the message", async () => {
      await b.messages.append({
        conversation: chan,
        userId: u,
        from: "n\u0000l",
        type: "private",
        text: "nul\u0000byte",
        ts: at += 1000,
      });
      const [last] = (await b.messages.historyOf(chan, { limit: 1 })).messages;
      if (b.name === "postgres") {
        // PostgreSQL's text cannot hold NUL: there it is U+FFFD, and the words around it count.
        assertEquals(last.message, "nul\uFFFDbyte");
        assertEquals(await search("byte"), [last.message]);
      } else {
        // node:sqlite cuts a bound text at its first NUL (a known difference, left to SQLite's side).
        assertEquals([last.from, last.message], ["n", "nul"]);
      }
    });

    await t.step("channel events are history, never search results; actions are", async () => {
      assertEquals(await search("toys"), ["waves at the toys", "62 toys in the box"]);
      assertEquals((await b.messages.historyOf(chan, { limit: 10 })).messages.length, 6);
    });
  },
);

forEachBackend(
  "message store: search pages are the newest matches whatever the word's rate",
  async (b, t) => {
    // PostgreSQL reads the user's newest rows, then asks the GIN index bucket of ids by bucket,
    // or walks further for a prefix that starts too many words (store/pg/search.ts); each rate
    // below takes another way, and every page must be the same newest-first matches a plain scan
    // gives. Gaps in the ids spread the user's rows over a dozen buckets, a few of them empty.
    const u = await b.user("rates@example.com");
    const conn = await b.connection(u, "irc-x");
    const chans = [await b.conversation(conn, "#a"), await b.conversation(conn, "#b")];
    const other = await b.user("other@example.com");
    const theirs = await b.conversation(await b.connection(other, "irc-x"), "#a");
    let at = nowMicros() - 10_000_000_000;
    const words = (i: number) =>
      [
        "line",
        i % 3 === 0 ? "often" : "",
        i % 45 === 0 ? "sometimes" : "",
        i % 60 === 7 ? "seldom" : "",
        i === 11 || i === 4444 ? "twice" : "",
      ].filter(Boolean).join(" ") + ` n${i}`;
    const N = 6000;
    for (let i = 0; i < N; i++) {
      if (i % 250 === 249) await b.skipIds(i === 2999 ? 300_000 : 20_000);
      b.messages.append({
        conversation: chans[i % 2],
        userId: u,
        from: "bob",
        type: "private",
        text: words(i),
        ts: at += 1000,
      });
      // Another user's rows in between: the user's rows are spread, as on a shared server.
      if (i % 4 === 0) {
        b.messages.append({
          conversation: theirs,
          userId: other,
          from: "eve",
          type: "private",
          text: "often sometimes seldom twice",
          ts: at,
        });
      }
    }
    await b.searchable();
    /** The numbers of the lines with a word that is `word` or, for a prefix, starts with it. */
    const expected = (word: string, prefix = false) =>
      Array.from({ length: N }, (_, i) => N - 1 - i).filter((i) =>
        words(i).split(" ").some((w) => prefix ? w.startsWith(word) : w === word)
      ).map((i) => `n${i}`);
    const numbers = (page: { messages: { message: string }[] }) =>
      page.messages.map((m) => m.message.slice(m.message.lastIndexOf(" ") + 1));
    for (const word of ["often", "sometimes", "seldom", "twice"]) {
      await t.step(`"${word}": the first two pages`, async () => {
        const want = expected(word);
        const first = await b.messages.search.forUser(u, { match: word, limit: 60 });
        assertEquals(numbers(first), want.slice(0, 60));
        if (want.length <= 60) return;
        const before = parseMicros(first.before!)!;
        const second = await b.messages.search.forUser(u, { match: word, limit: 60, before });
        assertEquals(numbers(second), want.slice(60, 120));
      });
    }
    // "ofte" starts one word; "n12" and "n59" start 111 each (n12, n120-n129, n1200-n1299),
    // more than PostgreSQL lists for the index: old lines and the newest ones.
    for (const prefix of ["ofte", "n12", "n59"]) {
      await t.step(`"${prefix}" as a prefix: the first page`, async () => {
        const page = await b.messages.search.forUser(u, { match: prefix, limit: 60 });
        assertEquals(numbers(page), expected(prefix, true).slice(0, 60));
      });
    }
    await t.step("a conversation narrows every way alike", async () => {
      const page = await b.messages.search.forUser(u, { match: "sometimes #b", limit: 60 });
      assertEquals(
        numbers(page),
        expected("sometimes").filter((n) => Number(n.slice(1)) % 2 === 1).slice(0, 60),
      );
    });
  },
);

forEachBackend("message store: the server's msgid and a reply's target are kept", async (b) => {
  const f = await fixture(b);
  const base = { conversation: f.test, userId: f.userId, from: "bob" } as const;
  await b.messages.append({ ...base, type: "private", text: "plain", ts: T0 });
  await b.messages.append({
    ...base,
    type: "private",
    text: "first",
    ts: T0 + 1000,
    serverMsgid: "s1",
  });
  await b.messages.append({
    ...base,
    type: "private",
    text: "answer",
    ts: T0 + 2000,
    serverMsgid: "s2",
    replyTo: "s1",
  });
  await b.messages.append({ ...base, type: "react", text: "👍", ts: T0 + 3000, replyTo: "s1" });
  await b.messages.flush();
  const page = await b.messages.historyOf(f.test, { limit: 10 });
  const got = page.messages.map((m) => [m.message, m.server_msgid, m.reply_to]);
  assertEquals(got, [
    ["plain", undefined, undefined],
    ["first", "s1", undefined],
    ["answer", "s2", "s1"],
    ["👍", undefined, "s1"],
  ]);
  assertEquals(page.messages[3].type, "react");
});
