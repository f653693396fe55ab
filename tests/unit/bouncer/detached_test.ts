/**
 * bouncer/detached.ts: soju's durations, what a detached channel's live line becomes for IRC
 * clients (a line, nothing, or a BouncerServ notice), what reattaches it, the detach-after timer
 * on a hand-moved clock, and a change stored and told (to the hubs and the web clients).
 */
import { assert, assertEquals } from "../../support/assert.ts";
import {
  changeDetach,
  DetachedChannels,
  parseDuration,
  relayNotice,
} from "../../../bouncer/detached.ts";
import { EventBus } from "../../../lib/bus.ts";
import type { DetachEvent, TapEvent } from "../../../protocol/events.ts";
import { realClock } from "../../../lib/clock.ts";
import { parseMessage } from "../../../irc/protocol/message.ts";
import type { DetachState } from "../../../protocol/detach.ts";
import { ManualClock } from "../../support/manual_clock.ts";
import { userWithConnection, withStore } from "./fakes.ts";

const state = (change: Partial<DetachState> = {}): DetachState => ({
  detached: false,
  relayDetached: "",
  reattachOn: "",
  detachAfter: 0,
  ...change,
});
const line = (raw: string) => parseMessage(raw)!;

Deno.test("detached: durations as soju writes them", () => {
  const cases: [string, number | undefined][] = [
    ["0", 0],
    ["30s", 30],
    ["1h30m", 5400],
    ["2.5h", 9000],
    ["1m1s", 61],
    ["90m", 5400],
    ["", undefined],
    ["30", undefined],
    ["1d", undefined],
    ["1h 30m", undefined],
    ["-1h", undefined],
    ["h", undefined],
    ["1h30x", undefined],
  ];
  for (const [text, seconds] of cases) assertEquals(parseDuration(text), seconds, text);
});

Deno.test("detached: a detached channel's events are dropped, its messages as relay-detached says", () => {
  const d = new DetachedChannels();
  d.set("#Quiet", state({ detached: true }));
  d.set("#all", state({ detached: true, relayDetached: "message" }));
  d.set("#none", state({ detached: true, relayDetached: "none" }));
  d.set("#open", state());
  assert(d.any);
  assert(d.isDetached("#quiet") && !d.isDetached("#open") && !d.isDetached("#other"));
  const lets = (raw: string) => d.lets(line(raw), "jane");
  assertEquals(lets(":bob!u@h JOIN #quiet"), "drop");
  assertEquals(lets(":bob!u@h TOPIC #quiet :new"), "drop");
  assertEquals(lets(":s 332 jane #quiet :topic"), "line", "numerics are answers, not news");
  assertEquals(lets(":bob!u@h PRIVMSG #open :hi"), "line");
  // Default (highlight): mentions only; the user's own lines never.
  assertEquals(lets(":bob!u@h PRIVMSG #quiet :hello all"), "drop");
  assertEquals(lets(":bob!u@h PRIVMSG #QUIET :jane: lunch?"), "notice");
  assertEquals(lets(":Jane!u@h PRIVMSG #quiet :jane: note to self"), "drop");
  assertEquals(lets(":bob!u@h NOTICE #all :anything"), "notice");
  assertEquals(lets(":bob!u@h PRIVMSG #none :jane: lunch?"), "drop");
});

Deno.test("detached: what reattaches a channel, and only a detached one", () => {
  const d = new DetachedChannels();
  d.set("#a", state({ detached: true }));
  d.set("#m", state({ detached: true, reattachOn: "message" }));
  d.set("#h", state({ detached: true, reattachOn: "highlight" }));
  d.set("#open", state({ reattachOn: "message" }));
  assertEquals(d.seen("#a", "jane: hi", "jane"), false, "default none");
  assertEquals(d.seen("#m", "anything", "jane"), true);
  assertEquals(d.seen("#h", "anything", "jane"), false);
  assertEquals(d.seen("#H", "hey jane", "jane"), true);
  assertEquals(d.seen("#open", "anything", "jane"), false, "attached already");
  assertEquals(d.seen("#unknown", "anything", "jane"), false);
  d.set("#a", state());
  d.set("#m", state());
  d.set("#h", state());
  assertEquals(d.any, false, "the count follows each change");
});

Deno.test("detached: detach-after runs out on an idle channel; each message starts it again", () => {
  const clock = new ManualClock();
  DetachedChannels.clock = clock;
  try {
    const idle: string[] = [];
    const d = new DetachedChannels((c) => idle.push(c));
    d.set("#Busy", state({ detachAfter: 60 }));
    d.set("#never", state());
    clock.advance(59_000);
    d.seen("#busy", "still here", "jane");
    clock.advance(59_000);
    assertEquals(idle, []);
    clock.advance(1_000);
    assertEquals(idle, ["#Busy"], "by the name it was set with");
    // A detached channel's timer does not run; setting it attached again arms it.
    d.set("#Busy", state({ detached: true, detachAfter: 60 }));
    clock.advance(120_000);
    assertEquals(idle, ["#Busy"]);
    d.set("#Busy", state({ detachAfter: 60 }));
    d.dispose();
    clock.advance(120_000);
    assertEquals(idle, ["#Busy"], "disposed: no timer left");
  } finally {
    DetachedChannels.clock = realClock;
  }
});

Deno.test("detached: the notice tells the channel and the sender; an action as * text", () => {
  assertEquals(
    relayNotice(line(":bob!u@h PRIVMSG #quiet :jane: lunch?"), "jane"),
    ":BouncerServ!BouncerServ@parley NOTICE jane :#quiet: <bob> jane: lunch?",
  );
  assertEquals(
    relayNotice(line(":bob!u@h PRIVMSG #quiet :\x01ACTION waves at jane\x01"), "jane"),
    ":BouncerServ!BouncerServ@parley NOTICE jane :#quiet: <bob> * waves at jane",
  );
  assertEquals(relayNotice(line(":bob!u@h PRIVMSG #quiet :x"), "bad nick"), undefined);
});

Deno.test("detached: a change is stored, told to the hubs and, when toggled, to web clients", async () => {
  await withStore(async (store) => {
    const { user, connection } = await userWithConnection(store);
    await store.conversations.ensure(connection.id, "#chan", "#Chan");
    await store.conversations.ensure(connection.id, "bob", "bob");
    const bus = new EventBus();
    const events: TapEvent[] = [];
    const untap = bus.tap((_, ev) => events.push(ev), ["state"]);
    const changes: DetachEvent[] = [];
    const stop = bus.tap((_, ev) => ev.event === "detach" && changes.push(ev), ["detach"]);
    try {
      const after = await changeDetach(store, user.id, "irc-test", "#CHAN", {
        detached: true,
        relayDetached: "message",
      }, bus);
      assertEquals(after, state({ detached: true, relayDetached: "message" }));
      const stored = await store.conversations.get(connection.id, "#chan");
      assertEquals(stored?.detach, after);
      assertEquals(changes.map((c) => [c.channel, c.toggled]), [["#Chan", true]]);
      assertEquals(events.length, 1);
      assertEquals(
        events[0].event === "state" && events[0].type === "conversation" &&
          events[0].detached,
        true,
      );
      // An option alone toggles nothing: the hubs hear it, the web clients need not.
      await changeDetach(store, user.id, "irc-test", "#chan", { detachAfter: 30 }, bus);
      assertEquals(changes.at(-1)?.toggled, false);
      assertEquals(changes.at(-1)?.state.detachAfter, 30);
      assertEquals(events.length, 1);
      const missing = async (connectionId: string, channel: string) => {
        try {
          await changeDetach(store, user.id, connectionId, channel, { detached: true }, bus);
        } catch (err) {
          return (err as { kind?: string }).kind;
        }
      };
      assertEquals(await missing("irc-nope", "#chan"), "not_found");
      assertEquals(await missing("irc-test", "#nope"), "not_found");
      assertEquals(await missing("irc-test", "bob"), "not_found", "a private conversation");
    } finally {
      stop();
      untap();
    }
  });
});
