/**
 * The bounded caches of irc/chat (highlight patterns, topic marks, ignore lists, highlight
 * keywords): when one is full, the entry used longest ago goes, never the whole cache, so the hot
 * entry of a busy channel stays; a topic mark expires on its own time.
 */
import { assert, assertEquals } from "../../../support/assert.ts";
import { poll } from "../../../support/poll.ts";
import { openStore, type Store } from "../../../../store/mod.ts";
import { EventBus } from "../../../../lib/bus.ts";
import { isHighlight } from "../../../../irc/chat/highlight.ts";
import { isTopicChanging, topicChanging } from "../../../../irc/chat/topics.ts";
import { isIgnored } from "../../../../irc/chat/ignore.ts";
import { highlightKeywords } from "../../../../irc/chat/record.ts";
import type { IrcConnection } from "../../../../irc/engine/connection.ts";

async function withStore(fn: (store: Store) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "parley-chat-caches-" });
  const store = await openStore(dir);
  try {
    await fn(store);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("highlight: a busy channel's pattern stays compiled past 1,000 others", () => {
  const Real = globalThis.RegExp;
  let built = 0;
  globalThis.RegExp = class extends Real {
    constructor(pattern: string | RegExp, flags?: string) {
      super(pattern, flags);
      built++;
    }
  } as RegExpConstructor;
  try {
    const hot = { nick: "hotnick", keywords: ["deploy"], isPrivate: false };
    assert(isHighlight({ ...hot, text: "deploy now" }));
    for (let i = 0; i <= 1000; i++) {
      isHighlight({ text: "hi", nick: `quiet${i}`, keywords: [], isPrivate: false });
      assert(isHighlight({ ...hot, text: "hotnick: look" }));
    }
    assertEquals(built, 1 + 1001, "the hot pattern was built again");
  } finally {
    globalThis.RegExp = Real;
  }
});

Deno.test("topic marks: the newest stay when a connection has more than 4,000", () => {
  const conn = {} as IrcConnection;
  for (let i = 1; i <= 4002; i++) topicChanging(conn, `#c${i}`);
  assert(isTopicChanging(conn, "#c4001"), "a mark just made was forgotten");
  assert(isTopicChanging(conn, "#c4002"));
  assert(!isTopicChanging(conn, "#c1"), "bounded: the oldest mark goes");
});

Deno.test("topic marks: a change sent again is marked from its last sending", async () => {
  const conn = {} as IrcConnection;
  topicChanging(conn, "#again", 1);
  topicChanging(conn, "#again", 60_000);
  topicChanging(conn, "#other", 1);
  await poll("the short mark to expire", () => !isTopicChanging(conn, "#other"));
  assert(isTopicChanging(conn, "#again"), "the first sending's deadline forgot the second");
});

Deno.test("ignore lists: a busy user's list stays cached past 10,000 other users", async () => {
  await withStore(async (store) => {
    const user = await store.users.create("ignorer@example.com", "x", []);
    await store.ignores.add(user.id, "bob!*@*");
    const bob = { nick: "bob", user: "b", host: "h" };
    assertEquals(await isIgnored(store, user.id, bob), true);
    for (let other = user.id + 1; other <= user.id + 10_000; other++) {
      assertEquals(await isIgnored(store, other, bob), false);
      // Every line of the busy user's channel asks; cached, the answer is at once.
      assertEquals(isIgnored(store, user.id, bob), true, `read again after ${other} users`);
    }
  });
});

Deno.test("highlight keywords: a busy user's stay cached past 10,000 other users", async () => {
  await withStore(async (store) => {
    const user = await store.users.create("keywords@example.com", "x", []);
    await store.users.update(user.id, { highlightKeywords: ["deploy"] });
    const reads = new Map<number, number>();
    const users = new Proxy(store.users, {
      get(target, key) {
        if (key !== "byId") return Reflect.get(target, key);
        return (id: number) => {
          reads.set(id, (reads.get(id) ?? 0) + 1);
          return target.byId(id);
        };
      },
    });
    const deps = {
      store: new Proxy(store, { get: (t, k) => k === "users" ? users : Reflect.get(t, k) }),
      bus: new EventBus(),
    };
    assertEquals(await highlightKeywords(deps, user.id), ["deploy"]);
    for (let other = user.id + 1; other <= user.id + 10_000; other++) {
      await highlightKeywords(deps, other);
      assertEquals(await highlightKeywords(deps, user.id), ["deploy"]);
    }
    assertEquals(reads.get(user.id), 1, "the busy user's keywords were read again");
  });
});
