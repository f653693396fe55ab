/**
 * The bouncer's history side over a whole store, on every backend: CHATHISTORY's subcommands
 * and their FAILs, msgids the same as the API's, MARKREAD both ways, and the replay on attach.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { forEachStore, idleConnection } from "../support/backends.ts";
import { EventBus } from "../../lib/bus.ts";
import type { BusEvent } from "../../protocol/events.ts";
import type { Store } from "../../store/mod.ts";
import type { MessageType } from "../../protocol/events.ts";
import {
  type HistoryScope,
  type HistoryService,
  historyService,
} from "../../bouncer/history/mod.ts";
import { msgidOf } from "../../lib/msgid.ts";
import { formatMicros } from "../../protocol/time.ts";

const T0 = Date.UTC(2026, 0, 1) * 1000;
const SEC = 1_000_000;
const iso = (us: number) => new Date(Math.floor(us / 1000)).toISOString();
const stamp = (us: number) => `timestamp=${iso(us)}`;

/** A line read back: tags, source, command, params. */
function parse(line: string) {
  const tags = new Map<string, string>();
  let rest = line;
  if (rest.startsWith("@")) {
    const sp = rest.indexOf(" ");
    for (const kv of rest.slice(1, sp).split(";")) {
      const eq = kv.indexOf("=");
      tags.set(eq < 0 ? kv : kv.slice(0, eq), eq < 0 ? "" : kv.slice(eq + 1));
    }
    rest = rest.slice(sp + 1);
  }
  let source = "";
  if (rest.startsWith(":")) {
    source = rest.slice(1, rest.indexOf(" "));
    rest = rest.slice(rest.indexOf(" ") + 1);
  }
  const colon = rest.indexOf(" :");
  const params = (colon < 0 ? rest : rest.slice(0, colon)).split(" ");
  if (colon >= 0) params.push(rest.slice(colon + 2));
  const [command, ...args] = params;
  return { tags, source, command, params: args };
}

interface World {
  store: Store;
  bus: EventBus;
  h: HistoryService;
  scope: HistoryScope;
  test: number;
  events: BusEvent[];
  add(conv: number, text: string, ts?: number, type?: MessageType, from?: string): Promise<void>;
}

/** #test: m0..m9 a second apart from T0, "bob joined." at 4.5 s; a private chat with bob. */
async function world(store: Store): Promise<World> {
  const bus = new EventBus();
  const h = historyService({ store, bus });
  assert(h, "the store has the history capability");
  const user = await store.users.create("b@example.com", "password-1", []);
  const conn = await idleConnection(store, user.id);
  const test = (await store.conversations.ensure(conn.id, "#test", "#Test")).id;
  const add = async (
    conv: number,
    text: string,
    ts: number | undefined,
    type: MessageType = "private",
    from = "alice",
  ) => {
    await store.messages.append({
      conversation: conv,
      userId: user.id,
      from,
      type,
      text,
      ts,
      unread: type === "private" && from !== "me",
      // A join is kept as data (its sender), as irc/chat/inbound/ keeps it.
      ...(type === "join" ? { text: "", fields: "{}" } : {}),
    });
  };
  for (let i = 0; i < 10; i++) await add(test, `m${i}`, T0 + i * SEC);
  await add(test, "bob joined.", T0 + 4.5 * SEC, "join", "bob");
  const events: BusEvent[] = [];
  bus.subscribe(user.id, (ev) => events.push(ev));
  const scope: HistoryScope = {
    userId: user.id,
    connection: { id: conn.id, connectionId: conn.connectionId },
    client: "phone",
    nick: "me",
  };
  return { store, bus, h, scope, test, events, add };
}

/** Waits until the clock is past the current millisecond. */
async function nextMillisecond() {
  const now = Date.now();
  while (Date.now() <= now) await new Promise((r) => setTimeout(r, 1));
}

const PLAIN = { batch: true, eventPlayback: false };
const texts = (lines: string[]) =>
  lines.map(parse).filter((l) => l.command === "PRIVMSG" || l.command === "NOTICE").map((l) =>
    l.params[1]
  );

forEachStore(
  "bouncer history: CHATHISTORY's subcommands, oldest first, bounds excluded",
  async (store, _b, t) => {
    const w = await world(store);
    const ask = (...params: string[]) => w.h.chathistory(w.scope, params, PLAIN);

    await t.step("LATEST * is the newest, in a chathistory batch with time and msgid", async () => {
      const out = await ask("LATEST", "#test", "*", "3");
      const [open, ...rest] = out.map(parse);
      const close = rest.pop()!;
      assertEquals([open.command, open.params[1], open.params[2]], [
        "BATCH",
        "chathistory",
        "#Test",
      ]);
      const id = open.params[0].slice(1);
      assertEquals(close.command, "BATCH");
      assertEquals(close.params, [`-${id}`]);
      assertEquals(texts(out), ["m7", "m8", "m9"]);
      const m9 = rest[2];
      assertEquals(m9.source, "alice");
      assertEquals(m9.params[0], "#Test");
      assertEquals(m9.tags.get("batch"), id);
      assertEquals(m9.tags.get("time"), iso(T0 + 9 * SEC));
      assertEquals(m9.tags.get("msgid"), msgidOf(w.test, T0 + 9 * SEC));
    });
    await t.step("the msgid is the one the API's history gives the message", async () => {
      const page = await store.messages.historyOf(w.test, { limit: 1 });
      assertEquals(page.messages[0].message, "m9");
      assertEquals(page.messages[0].msgid, msgidOf(w.test, T0 + 9 * SEC));
    });
    await t.step("LATEST after a reference, BEFORE, AFTER: exclusive", async () => {
      assertEquals(texts(await ask("LATEST", "#test", stamp(T0 + 7 * SEC), "10")), ["m8", "m9"]);
      assertEquals(texts(await ask("BEFORE", "#test", stamp(T0 + 3 * SEC), "2")), ["m1", "m2"]);
      assertEquals(texts(await ask("AFTER", "#test", stamp(T0 + 7 * SEC), "5")), ["m8", "m9"]);
      const id = msgidOf(w.test, T0 + 3 * SEC);
      assertEquals(texts(await ask("BEFORE", "#TEST", `msgid=${id}`, "2")), ["m1", "m2"]);
      assertEquals(texts(await ask("AFTER", "#test", `msgid=${id}`, "2")), ["m4", "m5"]);
    });
    await t.step("AROUND: half before, the named line and after", async () => {
      const id = msgidOf(w.test, T0 + 5 * SEC);
      assertEquals(texts(await ask("AROUND", "#test", `msgid=${id}`, "4")), [
        "m3",
        "m4",
        "m5",
        "m6",
      ]);
    });
    await t.step("BETWEEN either way, both ends excluded", async () => {
      const a = stamp(T0 + 2 * SEC);
      const b = stamp(T0 + 8 * SEC);
      assertEquals(texts(await ask("BETWEEN", "#test", a, b, "3")), ["m3", "m4", "m5"]);
      assertEquals(texts(await ask("BETWEEN", "#test", b, a, "3")), ["m5", "m6", "m7"]);
      assertEquals(texts(await ask("BETWEEN", "#test", a, a, "3")), []);
    });
    await t.step("joins only with draft/event-playback", async () => {
      const ref = stamp(T0 + 4 * SEC);
      assertEquals(texts(await ask("AFTER", "#test", ref, "1")), ["m5"]);
      const out = await w.h.chathistory(w.scope, ["AFTER", "#test", ref, "1"], {
        batch: true,
        eventPlayback: true,
      });
      const join = out.map(parse)[1];
      assertEquals([join.source, join.command, join.params], ["bob", "JOIN", ["#Test"]]);
      assertEquals(join.tags.get("msgid"), msgidOf(w.test, T0 + 4.5 * SEC));
    });
    await t.step("an empty batch when nothing matches or the target has no history", async () => {
      const none = (await ask("AFTER", "#test", stamp(T0 + 60 * SEC), "5")).map(parse);
      assertEquals(none.map((l) => l.command), ["BATCH", "BATCH"]);
      const unknown = (await ask("LATEST", "#nowhere", "*", "5")).map(parse);
      assertEquals(unknown.map((l) => l.command), ["BATCH", "BATCH"]);
      assertEquals(unknown[0].params.slice(1), ["chathistory", "#nowhere"]);
    });
    await t.step("without batch, the lines alone", async () => {
      const out = await w.h.chathistory(w.scope, ["LATEST", "#test", "*", "2"], {
        batch: false,
        eventPlayback: false,
      });
      assertEquals(out.map((l) => parse(l).command), ["PRIVMSG", "PRIVMSG"]);
      assert(out.every((l) => !parse(l).tags.has("batch")));
    });
    await t.step("a limit over the server's is cut to it", async () => {
      assertEquals(w.h.limit >= 100, true);
      assertEquals(texts(await ask("LATEST", "#test", "*", "999999999")).length, 10);
    });
  },
);

forEachStore("bouncer history: bad requests get a FAIL and nothing else", async (store, _b, t) => {
  const w = await world(store);
  const ask = (...params: string[]) => w.h.chathistory(w.scope, params, PLAIN);
  const failOf = async (...params: string[]) => {
    const out = await ask(...params);
    assertEquals(out.length, 1, `one line for ${params.join(" ")}`);
    const l = parse(out[0]);
    assertEquals([l.command, l.params[0]], ["FAIL", "CHATHISTORY"]);
    return l.params[1];
  };
  const ts = stamp(T0);
  await t.step("INVALID_PARAMS", async () => {
    assertEquals(await failOf("SOMETIMES", "#test", ts, "5"), "INVALID_PARAMS");
    assertEquals(await failOf(), "INVALID_PARAMS");
    assertEquals(await failOf("LATEST", "#test", "*"), "INVALID_PARAMS");
    assertEquals(await failOf("BEFORE", "#test", ts, "5", "extra"), "INVALID_PARAMS");
    assertEquals(await failOf("BEFORE", "#test", ts, "0"), "INVALID_PARAMS");
    assertEquals(await failOf("BEFORE", "#test", ts, "-3"), "INVALID_PARAMS");
    assertEquals(await failOf("BEFORE", "#test", ts, "ten"), "INVALID_PARAMS");
    assertEquals(await failOf("BEFORE", "#test", "*", "5"), "INVALID_PARAMS");
    assertEquals(await failOf("BEFORE", "#test", "timestamp=yesterday", "5"), "INVALID_PARAMS");
    assertEquals(
      await failOf("BEFORE", "#test", "timestamp=2026-13-01T00:00:00.000Z", "5"),
      "INVALID_PARAMS",
    );
    assertEquals(
      await failOf("BEFORE", "#test", "timestamp=9999999-01-01T00:00:00Z", "5"),
      "INVALID_PARAMS",
    );
    assertEquals(await failOf("BEFORE", "#test", "msgid=../../etc", "5"), "INVALID_PARAMS");
    assertEquals(await failOf("BEFORE", "#test", "2026-01-01", "5"), "INVALID_PARAMS");
    assertEquals(
      await failOf("TARGETS", `msgid=${msgidOf(w.test, T0)}`, ts, "5"),
      "INVALID_PARAMS",
    );
  });
  await t.step("INVALID_MSGREFTYPE", async () => {
    assertEquals(await failOf("BEFORE", "#test", "seq=12", "5"), "INVALID_MSGREFTYPE");
    assertEquals(await failOf("BETWEEN", "#test", ts, "id=1", "5"), "INVALID_MSGREFTYPE");
  });
  await t.step("INVALID_TARGET", async () => {
    assertEquals(await failOf("LATEST", "*", "*", "5"), "INVALID_TARGET");
    assertEquals(await failOf("LATEST", "#a\x01b", "*", "5"), "INVALID_TARGET");
    assertEquals(await failOf("LATEST", "#a,#b", "*", "5"), "INVALID_TARGET");
    assertEquals(await failOf("LATEST", "#" + "x".repeat(300), "*", "5"), "INVALID_TARGET");
    // One word, but neither a channel nor a nick: a mask, a source, a wildcard.
    for (const target of ["bob!u@host", "$*.example", "bo*", "who?", "a@b", "#", "~bob", "@op"]) {
      assertEquals(await failOf("LATEST", target, "*", "5"), "INVALID_TARGET", target);
    }
  });
  await t.step("MESSAGE_ERROR for a msgid that names nothing here", async () => {
    const other = (await store.conversations.ensure(w.scope.connection.id, "#other", "#other")).id;
    await w.add(other, "elsewhere", T0 + 30 * SEC);
    assertEquals(
      await failOf("BEFORE", "#test", `msgid=${msgidOf(other, T0 + 30 * SEC)}`, "5"),
      "MESSAGE_ERROR",
    );
    assertEquals(
      await failOf("BEFORE", "#test", `msgid=${msgidOf(w.test, T0 + SEC / 2)}`, "5"),
      "MESSAGE_ERROR",
    );
    assertEquals(
      await failOf("BEFORE", "#none", `msgid=${msgidOf(w.test, T0)}`, "5"),
      "MESSAGE_ERROR",
    );
  });
  await t.step("a hostile word is echoed as one bounded word", async () => {
    const out = await ask("x".repeat(5000) + " :QUIT", "#test", ts, "5");
    assertEquals(out.length, 1);
    assert(out[0].length < 200, "bounded");
    assertEquals(parse(out[0]).params.length, 4);
  });
});

forEachStore("bouncer history: TARGETS lists conversations by their newest line", async (store) => {
  const w = await world(store);
  const bob = (await store.conversations.ensure(w.scope.connection.id, "bob", "Bob")).id;
  await w.add(bob, "hi", T0 + 20 * SEC, "private", "Bob");
  await w.add(bob, "hi Bob", T0 + 21 * SEC, "private", "me");
  const out = await w.h.chathistory(
    w.scope,
    ["TARGETS", stamp(T0), stamp(T0 + 60 * SEC), "10"],
    PLAIN,
  );
  const lines = out.map(parse);
  assertEquals(lines[0].params.slice(1), ["draft/chathistory-targets"]);
  const id = lines[0].params[0].slice(1);
  assertEquals(
    lines.slice(1, -1).map((l) => [l.tags.get("batch"), l.command, ...l.params]),
    [
      [id, "CHATHISTORY", "TARGETS", "#Test", iso(T0 + 9 * SEC)],
      [id, "CHATHISTORY", "TARGETS", "Bob", iso(T0 + 21 * SEC)],
    ],
  );
  // Reversed bounds: the newest first picked, still listed oldest first.
  const newest = await w.h.chathistory(
    w.scope,
    ["TARGETS", stamp(T0 + 60 * SEC), stamp(T0), "1"],
    PLAIN,
  );
  assertEquals(newest.map(parse).slice(1, -1).map((l) => l.params[1]), ["Bob"]);
  // A private chat: the other person's lines were to the user, the user's to them.
  const chat = (await w.h.chathistory(w.scope, ["LATEST", "bob", "*", "5"], PLAIN)).map(parse);
  assertEquals(chat.slice(1, -1).map((l) => [l.source, l.params[0], l.params[1]]), [
    ["Bob", "me", "hi"],
    ["me", "Bob", "hi Bob"],
  ]);
});

forEachStore(
  "bouncer history: MARKREAD moves the marker forward, both ways",
  async (store, _b, t) => {
    const w = await world(store);
    const unread = async () =>
      (await store.conversations.get(w.scope.connection.id, "#test"))!.unread;
    await t.step("a query before any read says *", async () => {
      assertEquals(await w.h.markRead(w.scope, ["#test"]), ["MARKREAD #Test *"]);
      assertEquals(await w.h.marker(w.scope, "#TEST"), "MARKREAD #Test *");
    });
    await t.step(
      "a marker lowers unread and tells the web client and the other clients",
      async () => {
        assertEquals(await unread(), 10);
        const out = await w.h.markRead(w.scope, ["#test", stamp(T0 + 6 * SEC)]);
        assertEquals(out, [`MARKREAD #Test ${stamp(T0 + 6 * SEC)}`]);
        assertEquals(await unread(), 3);
        const where = { connection_id: "irc-localhost", conversation_id: "#test" };
        assertEquals(w.events, [
          { event: "unread", ...where, unread: 3 },
          { event: "read", ...where, ts: formatMicros(T0 + 6 * SEC + 999) },
        ]);
        assertEquals(await w.h.marker(w.scope, "#test"), `MARKREAD #Test ${stamp(T0 + 6 * SEC)}`);
        // The notification list of the web client counts from the same marker.
        const conv = (await store.conversations.listForUser(w.scope.userId)).find((c) =>
          c.id === w.test
        )!;
        assertEquals(conv.lastRead, T0 + 6 * SEC + 999);
      },
    );
    await t.step(
      "an older marker changes nothing and is answered with the current one",
      async () => {
        w.events.length = 0;
        const out = await w.h.markRead(w.scope, ["#test", stamp(T0 + 2 * SEC)]);
        assertEquals(out, [`MARKREAD #Test ${stamp(T0 + 6 * SEC)}`]);
        assertEquals(await unread(), 3);
        assertEquals(w.events, []);
      },
    );
    await t.step("bad MARKREADs get a FAIL", async () => {
      const code = async (...params: string[]) => {
        const out = await w.h.markRead(w.scope, params);
        assertEquals(out.length, 1);
        const l = parse(out[0]);
        assertEquals([l.command, l.params[0]], ["FAIL", "MARKREAD"]);
        return l.params[1];
      };
      assertEquals(await code(), "NEED_MORE_PARAMS");
      assertEquals(await code("#test", "timestamp=soon"), "INVALID_PARAMS");
      assertEquals(await code("#test", "msgid=abc"), "INVALID_PARAMS");
      assertEquals(await code("#test", stamp(T0), "more"), "INVALID_PARAMS");
      assertEquals(await code("#nowhere", stamp(T0)), "INVALID_PARAMS");
      assertEquals(await code("#a b", stamp(T0)), "INVALID_PARAMS");
      assertEquals(w.events, []);
    });
    await t.step("a read event becomes a MARKREAD line", () => {
      assertEquals(
        w.h.markerLine("#Test", formatMicros(T0 + 8 * SEC + 17)),
        `MARKREAD #Test ${stamp(T0 + 8 * SEC)}`,
      );
    });
  },
);

forEachStore(
  "bouncer history: a client without chathistory gets what it missed",
  async (store, _b, t) => {
    const w = await world(store);
    const bob = (await store.conversations.ensure(w.scope.connection.id, "bob", "bob")).id;
    const batches = (out: string[]) => {
      const got: Record<string, string[]> = {};
      let target = "";
      for (const l of out.map(parse)) {
        if (l.command === "BATCH" && l.params[0].startsWith("+")) {
          assertEquals(l.params[1], "chathistory");
          target = l.params[2];
          got[target] = [];
        } else if (l.command !== "BATCH") got[target].push(l.params[1]);
      }
      return got;
    };
    await t.step("a new name gets the last lines of each channel it is shown", async () => {
      const out = await w.h.replay(w.scope, ["#TEST"]);
      assertEquals(batches(out), {
        "#Test": ["m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9"],
      });
    });
    await t.step("coming back, only what came since, private chats too", async () => {
      // Shown live while attached: not missed.
      await w.add(w.test, "seen live", undefined);
      await nextMillisecond();
      await w.h.detach(w.scope);
      // Stored now (no time given): after the place the detach kept.
      await w.add(w.test, "while away", undefined);
      await w.add(bob, "psst", undefined, "private", "bob");
      // A replay shows lines of past milliseconds only (one stored in the current one may follow).
      await nextMillisecond();
      const out = await w.h.replay(w.scope, ["#test"]);
      assertEquals(batches(out), { "#Test": ["while away"], bob: ["psst"] });
      assertEquals(batches(await w.h.replay(w.scope, ["#test"])), {}, "nothing twice");
    });
    await t.step("another name keeps its own place", async () => {
      const laptop = { ...w.scope, client: "laptop" };
      const first = batches(await w.h.replay(laptop, ["#test"]));
      assertEquals(first, {
        "#Test": [
          "m0",
          "m1",
          "m2",
          "m3",
          "m4",
          "m5",
          "m6",
          "m7",
          "m8",
          "m9",
          "seen live",
          "while away",
        ],
        // A private conversation of the last day, as for a new name.
        bob: ["psst"],
      });
    });
  },
);
