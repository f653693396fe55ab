/**
 * bouncer/history/chathistory.ts over a real store: each subcommand's lines (oldest first, bounds
 * excluded, at most the limit, in a batch named for the target), TARGETS, events only with
 * event-playback, and a FAIL with its code for every request that cannot be answered.
 */
import { assert, assertEquals } from "../../../support/assert.ts";
import { parseMessage } from "../../../../irc/protocol/message.ts";
import { historyService } from "../../../../bouncer/history/mod.ts";
import { EventBus } from "../../../../lib/bus.ts";
import type { Store } from "../../../../store/mod.ts";
import { withStore } from "../fakes.ts";
import { at, seed, stamp } from "./history.ts";

const opts = { batch: true, eventPlayback: false };

/** The texts of a batch's lines, checking the batch around them. */
function texts(lines: string[], target = "#Chan"): string[] {
  const [start, ...rest] = lines;
  const end = rest.pop()!;
  const open = parseMessage(start)!;
  assertEquals([open.command, open.params.slice(1)], ["BATCH", ["chathistory", target]]);
  const id = open.params[0].slice(1);
  assertEquals(end, `BATCH -${id}`);
  return rest.map((l) => {
    const m = parseMessage(l)!;
    assertEquals(m.tags.get("batch"), id);
    return m.command === "PRIVMSG" ? m.params[1] : `${m.command} ${m.prefix}`;
  });
}

Deno.test("chathistory: LATEST, BEFORE, AFTER, AROUND and BETWEEN, bounds excluded", async () => {
  await withStore(async (store) => {
    const { history, scope, msgid } = await seed(store);
    const ask = async (...params: string[]) =>
      texts(await history.chathistory(scope, params, opts));
    const m = (...n: number[]) => n.map((i) => `message ${i}`);
    assertEquals(await ask("LATEST", "#chan", "*", "3"), m(7, 8, 9));
    assertEquals(await ask("LATEST", "#CHAN", stamp(at(7)), "10"), m(8, 9), "after the reference");
    assertEquals(await ask("BEFORE", "#chan", stamp(at(5)), "2"), m(3, 4));
    assertEquals(await ask("BEFORE", "#chan", msgid(5), "2"), m(3, 4));
    assertEquals(await ask("AFTER", "#chan", msgid(5), "2"), m(6, 7));
    assertEquals(await ask("AFTER", "#chan", stamp(at(9)), "2"), []);
    assertEquals(await ask("AROUND", "#chan", stamp(at(5)), "4"), m(3, 4, 5, 6));
    assertEquals(await ask("AROUND", "#chan", msgid(0), "1"), m(0));
    assertEquals(await ask("BETWEEN", "#chan", msgid(2), msgid(7), "10"), m(3, 4, 5, 6));
    // From the first towards the second: backwards, the newest ones nearest the first.
    assertEquals(await ask("BETWEEN", "#chan", msgid(7), msgid(2), "2"), m(5, 6));
    assertEquals(await ask("BETWEEN", "#chan", msgid(4), msgid(4), "2"), []);
  });
});

Deno.test("chathistory: each line carries its time and stored msgid; private lines to the nick", async () => {
  await withStore(async (store) => {
    const { history, scope, msgid, bob } = await seed(store);
    const [, first] = await history.chathistory(scope, ["BEFORE", "#chan", msgid(1), "1"], opts);
    const m = parseMessage(first)!;
    assertEquals(m.tags.get("time"), new Date(at(0) / 1000).toISOString());
    assertEquals(`msgid=${m.tags.get("msgid")}`, msgid(0));
    assertEquals([m.prefix, m.params[0]], ["bob", "#Chan"]);
    const priv = await history.chathistory(scope, ["LATEST", "bob", "*", "5"], opts);
    assertEquals(texts(priv, "bob"), ["psst"]);
    assertEquals(parseMessage(priv[1])!.params[0], "jane", "bob's line was sent to jane");
    assert(priv[1].includes(`msgid=${bob.id.toString(36)}.`));
  });
});

Deno.test("chathistory: without batch, the lines alone; events only with event-playback", async () => {
  await withStore(async (store) => {
    const { history, scope } = await seed(store);
    const plain = await history.chathistory(scope, ["AFTER", "#chan", stamp(at(5)), "2"], {
      batch: false,
      eventPlayback: false,
    });
    assertEquals(plain.map((l) => parseMessage(l)!.params[1]), ["message 6", "message 7"]);
    assert(plain.every((l) => !l.includes("batch=")));
    const events = await history.chathistory(scope, ["AFTER", "#chan", stamp(at(5)), "2"], {
      batch: true,
      eventPlayback: true,
    });
    assertEquals(texts(events), ["JOIN carol", "message 6"]);
  });
});

Deno.test("chathistory: a conversation never spoken in gets an empty batch", async () => {
  await withStore(async (store) => {
    const { history, scope } = await seed(store);
    const lines = await history.chathistory(scope, ["LATEST", "#Quiet", "*", "10"], opts);
    assertEquals(texts(lines, "#Quiet"), []);
    assertEquals(
      await history.chathistory(scope, ["LATEST", "#Quiet", "*", "10"], {
        batch: false,
        eventPlayback: false,
      }),
      [],
    );
  });
});

Deno.test("chathistory: TARGETS lists conversations by their latest line, bare times", async () => {
  await withStore(async (store) => {
    const { history, scope } = await seed(store);
    const lines = await history.chathistory(
      scope,
      ["TARGETS", stamp(at(0)), stamp(at(9) + 1000), "10"],
      opts,
    );
    assertEquals(parseMessage(lines[0])!.params.slice(1), ["draft/chathistory-targets"]);
    const body = lines.slice(1, -1).map((l) => parseMessage(l)!.params);
    assertEquals(body, [
      ["TARGETS", "bob", new Date((at(3) + 200_000) / 1000).toISOString()],
      ["TARGETS", "#Chan", new Date(at(9) / 1000).toISOString()],
    ]);
    // Backwards, limited to the one nearest the first reference (the later one).
    const back = await history.chathistory(
      scope,
      ["TARGETS", stamp(at(9) + 1000), stamp(at(0)), "1"],
      { batch: false, eventPlayback: false },
    );
    assertEquals(back.map((l) => parseMessage(l)!.params[1]), ["#Chan"]);
    assertEquals(
      await history.chathistory(scope, ["TARGETS", stamp(at(1)), stamp(at(1)), "5"], {
        batch: false,
        eventPlayback: false,
      }),
      [],
    );
  });
});

Deno.test("chathistory: every request it cannot answer is a FAIL with its code", async () => {
  await withStore(async (store) => {
    const { history, scope, msgid, bob } = await seed(store);
    const fail = async (...params: string[]) => {
      const lines = await history.chathistory(scope, params, opts);
      assertEquals(lines.length, 1, params.join(" "));
      const m = parseMessage(lines[0])!;
      assertEquals(m.command, "FAIL");
      return m.params.slice(1, -1).join(" ");
    };
    assertEquals(await fail("FROB", "#chan"), "INVALID_PARAMS FROB");
    assertEquals(await fail(), "INVALID_PARAMS *");
    assertEquals(await fail("LATEST", "#chan", "*"), "INVALID_PARAMS LATEST");
    assertEquals(await fail("between", "#chan", "*", "*"), "INVALID_PARAMS BETWEEN");
    assertEquals(await fail("LATEST", "*bad*", "*", "10"), "INVALID_TARGET LATEST *bad*");
    assertEquals(await fail("BEFORE", "#chan", "*", "10"), "INVALID_PARAMS BEFORE *");
    assertEquals(
      await fail("BEFORE", "#chan", "unixtime=1", "10"),
      "INVALID_MSGREFTYPE BEFORE unixtime=1",
    );
    assertEquals(
      await fail("BEFORE", "#chan", "timestamp=x", "10"),
      "INVALID_PARAMS BEFORE timestamp=x",
    );
    assertEquals(await fail("LATEST", "#chan", "*", "0"), "INVALID_PARAMS LATEST 0");
    assertEquals(await fail("LATEST", "#chan", "*", "many"), "INVALID_PARAMS LATEST many");
    // A msgid of another conversation, or of a millisecond with no line, names nothing here.
    const other = `msgid=${bob.id.toString(36)}.${Math.floor(at(3) / 1000).toString(36)}`;
    assertEquals(await fail("AFTER", "#chan", other, "10"), "MESSAGE_ERROR AFTER #chan");
    const none = msgid(3).replace(/\.(\w+)$/, (_, ms) => `.${(parseInt(ms, 36) + 1).toString(36)}`);
    assertEquals(await fail("AFTER", "#chan", none, "10"), "MESSAGE_ERROR AFTER #chan");
    assertEquals(await fail("AFTER", "#nochan", msgid(3), "10"), "MESSAGE_ERROR AFTER #nochan");
    assertEquals(await fail("TARGETS", msgid(1), stamp(at(2)), "10"), "INVALID_PARAMS TARGETS");
    assertEquals(
      await fail("TARGETS", stamp(at(1)), stamp(at(2)), "x"),
      "INVALID_PARAMS TARGETS x",
    );
  });
});

Deno.test("chathistory: a store without history offers none", async () => {
  await withStore((store) => {
    const blind = Object.create(store, {
      messages: { value: Object.create(store.messages, { history: { value: undefined } }) },
    }) as Store;
    assertEquals(historyService({ store: blind, bus: new EventBus() }), undefined);
    assertEquals(historyService({ store, bus: new EventBus() })?.limit, 1000);
    return Promise.resolve();
  });
});
