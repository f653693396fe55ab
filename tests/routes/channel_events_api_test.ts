/**
 * The history API gives a channel event's fields beside `message`, and `message` in Convos's
 * words, exactly the sentences it gave when they were stored as text; an event stored as text
 * by an older version (one its migration could not read) is given as it was.
 */
import { assertEquals } from "../support/assert.ts";
import { adminAndUser } from "../support/api.ts";
import { startApp } from "../support/app.ts";
import { storedFields } from "../../store/event_fields.ts";
import type { KeptFields, KeptKind } from "../../protocol/events.ts";

const T0 = Date.UTC(2026, 0, 1) * 1000;

Deno.test("history API: channel events with their fields and Convos's words", async () => {
  const a = await startApp({ PARLEY_IRC_ALLOW_PRIVATE: "1" });
  try {
    const { user } = await adminAndUser(a);
    const made = await user.post("/api/connections", {
      url: "irc://127.0.0.1:1?nick=me",
      wanted_state: "disconnected",
    });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    const { store } = a.deps;
    const userId = (await store.users.byEmail("user@example.com"))!.id;
    const conn = (await store.connections.get(userId, "irc-localhost"))!;
    const chan = await store.conversations.ensure(conn.id, "#test", "#test");
    let ts = T0;
    // As the IRC side keeps them (irc/chat/inbound/context.ts).
    const keep = <K extends KeptKind>(kind: K, fields: KeptFields<K>) =>
      store.messages.append({
        conversation: chan.id,
        userId,
        type: kind,
        text: "",
        ts: ts += 1000,
        ...storedFields(kind, fields),
      });
    const want: [string, string, Record<string, string>][] = [];
    const both = <K extends KeptKind>(kind: K, fields: KeptFields<K>, said: string) => {
      keep(kind, fields);
      want.push([kind, said, fields as Record<string, string>]);
    };
    both("join", { nick: "bob" }, "bob joined.");
    both("part", { nick: "bob" }, "bob left.");
    both("part", { nick: "bob", message: "bye" }, "bob left: bye");
    both("kick", { nick: "carol", kicker: "bob" }, "carol was kicked by bob.");
    both("kick", { nick: "carol", kicker: "bob", message: "out" }, "carol was kicked by bob: out");
    both("quit", { nick: "bob" }, "bob quit.");
    both("quit", { nick: "bob", message: '"gone"' }, 'bob quit: "gone"');
    both("nick_change", { old_nick: "bob", new_nick: "bobby" }, "bob is now known as bobby.");
    both("topic", { nick: "bob", topic: "events" }, "bob changed the topic to: events");
    both("topic", { nick: "bob", topic: "" }, "bob cleared the topic.");
    both("mode", { nick: "bob", mode: "+v dana" }, "bob set mode +v dana.");
    // Stored as text by an older version.
    store.messages.append({
      conversation: chan.id,
      userId,
      from: "bob",
      type: "kick",
      text: "an old kick",
      ts: ts += 1000,
    });
    await store.messages.flush();

    const res = await user.get("/api/connection/irc-localhost/conversation/%23test/messages");
    assertEquals(res.status, 200);
    const got = res.body.messages as {
      type: string;
      from: string;
      message: string;
      fields?: Record<string, string>;
    }[];
    assertEquals(got.map((m) => [m.type, m.message, m.fields]), [
      ...want,
      ["kick", "an old kick", undefined],
    ]);
    // The sender is who did it: the kicker of a kick, the old nick of a nick change.
    assertEquals(got.map((m) => m.from).slice(3, 5), ["bob", "bob"]);
    assertEquals(got[7].from, "bob");
  } finally {
    await a.close();
  }
});
