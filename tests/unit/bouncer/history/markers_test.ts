/**
 * bouncer/history/markers.ts over a real store: MARKREAD read and answered (the marker, or a
 * FAIL saying what was wrong), a marker that only moves forward, and a move told on the bus.
 */
import { assert, assertEquals } from "../../../support/assert.ts";
import type { TapEvent } from "../../../../protocol/events.ts";
import { formatMicros } from "../../../../protocol/time.ts";
import { withStore } from "../fakes.ts";
import { at, seed, stamp } from "./history.ts";

const iso = (us: number) => new Date(Math.floor(us / 1000)).toISOString();

Deno.test("markread: a bad request is a FAIL saying what was wrong", async () => {
  await withStore(async (store) => {
    const { history, scope } = await seed(store);
    const cases: [string[], string][] = [
      [[], "FAIL MARKREAD NEED_MORE_PARAMS :Missing parameters"],
      [["*bad"], "FAIL MARKREAD INVALID_PARAMS *bad :Invalid parameters"],
      [["#chan", stamp(at(1)), "x"], "FAIL MARKREAD INVALID_PARAMS #chan :Invalid parameters"],
      [["#chan", "timestamp=x"], "FAIL MARKREAD INVALID_PARAMS #chan :Invalid timestamp"],
      [["#chan", iso(at(1))], "FAIL MARKREAD INVALID_PARAMS #chan :Invalid timestamp"],
      [["#chan", "*"], "FAIL MARKREAD INVALID_PARAMS #chan :Invalid timestamp"],
      [["#nochan", stamp(at(1))], "FAIL MARKREAD INVALID_PARAMS #nochan :No such conversation"],
    ];
    for (const [params, expected] of cases) {
      assertEquals(await history.markRead(scope, params), [expected], params.join(" "));
    }
  });
});

Deno.test("markread: a bare MARKREAD asks; * when there is no marker", async () => {
  await withStore(async (store) => {
    const { history, scope } = await seed(store);
    assertEquals(await history.markRead(scope, ["#CHAN"]), ["MARKREAD #Chan *"]);
    assertEquals(await history.markRead(scope, ["#unknown"]), ["MARKREAD #unknown *"]);
    assertEquals(await history.marker(scope, "#chan"), "MARKREAD #Chan *");
    assertEquals(await history.marker(scope, "#unknown"), undefined);
    assertEquals(await history.marker(scope, "*bad"), undefined);
  });
});

Deno.test("markread: the marker moves forward only, and each move is told", async () => {
  await withStore(async (store) => {
    const { history, scope, bus, connection } = await seed(store);
    const events: TapEvent[] = [];
    const untap = bus.tap((_, ev) => events.push(ev));
    try {
      const moved = `MARKREAD #Chan timestamp=${iso(at(4))}`;
      assertEquals(await history.markRead(scope, ["#chan", stamp(at(4))]), [moved]);
      assertEquals(events.map((e) => e.event), ["unread", "read"]);
      const [unread, read] = events as unknown as Record<string, unknown>[];
      assertEquals(unread.unread, 5, "the five messages after it");
      assertEquals([read.connection_id, read.conversation_id], ["irc-test", "#chan"]);
      const stored = await store.conversations.get(connection.id, "#chan");
      assertEquals(stored?.lastRead, at(4) + 999, "the whole millisecond is read");
      // Back is no move: the marker stays, nothing is told.
      assertEquals(await history.markRead(scope, ["#chan", stamp(at(2))]), [moved]);
      assertEquals(await history.markRead(scope, ["#chan", stamp(at(4))]), [moved]);
      assertEquals(events.length, 2);
      assertEquals(await history.marker(scope, "#Chan"), moved);
    } finally {
      untap();
    }
  });
});

Deno.test("markread: a read event's line, for the other clients", async () => {
  await withStore(async (store) => {
    const { history } = await seed(store);
    const us = at(4) + 999;
    assertEquals(
      history.markerLine("#Chan", formatMicros(us)),
      `MARKREAD #Chan timestamp=${iso(us)}`,
    );
    assertEquals(history.markerLine("a b", "not a time"), "MARKREAD ab *");
    assert(history.limit === 1000);
  });
});
