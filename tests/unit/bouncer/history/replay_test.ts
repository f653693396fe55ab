/**
 * bouncer/history/replay.ts over a real store: what a client without chathistory is replayed on
 * attach (the last lines when its place is unknown, what its name missed since), its place kept
 * per client name, and a replay cut at its cap beginning with a notice of what it left out.
 */
import { assert, assertEquals } from "../../../support/assert.ts";
import { REPLAY_MAX, REPLAY_UNKNOWN } from "../../../../bouncer/history/mod.ts";
import { parseMessage } from "../../../../irc/protocol/message.ts";
import type { Store } from "../../../../store/mod.ts";
import { withStore } from "../fakes.ts";
import { seed } from "./history.ts";

/** Each batch's target and its lines' texts (a NOTICE's as `notice: text`). */
function batches(lines: string[]): [string, string[]][] {
  const out: [string, string[]][] = [];
  for (const l of lines) {
    const m = parseMessage(l)!;
    if (m.command === "BATCH" && m.params[0].startsWith("+")) out.push([m.params[2], []]);
    else if (m.command !== "BATCH") {
      out.at(-1)![1].push(m.command === "NOTICE" ? `notice: ${m.params[1]}` : m.params[1]);
    }
  }
  return out;
}

async function say(store: Store, conversation: number, userId: number, n: number, text: string) {
  for (let i = 0; i < n; i++) {
    await store.messages.append({
      conversation,
      userId,
      from: "bob",
      type: "private",
      text: `${text} ${i}`,
    });
  }
  await store.messages.flush();
}

Deno.test("replay: a new client name gets the channels' last lines, then what it missed", async () => {
  await withStore(async (store) => {
    const { history, scope, chan, bob, user } = await seed(store);
    const first = batches(await history.replay(scope, ["#chan", "#other"]));
    assertEquals(first.map(([t]) => t), ["#Chan"], "channels it is shown; no private ones yet");
    assertEquals(first[0][1].length, 10, "every line up to 50, messages only");
    assert(!first[0][1].some((t) => t.includes("JOIN")));
    assertEquals(batches(await history.replay(scope, ["#chan"])), [], "nothing new");
    await say(store, chan.id, user.id, 2, "new");
    await say(store, bob.id, user.id, 1, "hi jane");
    const second = batches(await history.replay(scope, ["#chan"]));
    assertEquals(second, [["#Chan", ["new 0", "new 1"]], ["bob", ["hi jane 0"]]]);
    // Another client name has its own place.
    const laptop = batches(await history.replay({ ...scope, client: "laptop" }, ["#chan"]));
    assertEquals(laptop[0][1].length, 12);
  });
});

Deno.test("replay: a new client name gets the day's private conversations too", async () => {
  await withStore(async (store) => {
    const { history, scope, user, connection } = await seed(store);
    // carol wrote an hour ago (the seed's bob, months ago, is not shown).
    const carol = await store.conversations.ensure(connection.id, "carol", "carol");
    await say(store, carol.id, user.id, REPLAY_UNKNOWN + 5, "lately");
    const first = batches(await history.replay(scope, ["#chan"]));
    assertEquals(first.map(([t]) => t), ["#Chan", "carol"]);
    const [, texts] = first[1];
    assertEquals(texts.length, REPLAY_UNKNOWN, "the last lines, as of a channel");
    assertEquals(texts.at(-1), `lately ${REPLAY_UNKNOWN + 4}`);
    // A client without a name keeps no place: it would get them again at each attach.
    const anon = batches(await history.replay({ ...scope, client: "" }, ["#chan"]));
    assertEquals(anon.map(([t]) => t), ["#Chan"]);
  });
});

Deno.test("replay: a client without a name keeps no place: the last lines each time", async () => {
  await withStore(async (store) => {
    const { history, scope, chan, user } = await seed(store);
    await say(store, chan.id, user.id, REPLAY_UNKNOWN, "more");
    const anon = { ...scope, client: "" };
    for (let i = 0; i < 2; i++) {
      const [[target, texts]] = batches(await history.replay(anon, ["#chan"]));
      assertEquals(target, "#Chan");
      assertEquals(texts.length, REPLAY_UNKNOWN);
      assertEquals(texts.at(-1), `more ${REPLAY_UNKNOWN - 1}`);
    }
    assertEquals(await store.messages.history!.position(scope.connection.id, ""), undefined);
  });
});

Deno.test("replay: past the cap, a notice says how many earlier lines are left out", async () => {
  await withStore(async (store) => {
    const { history, scope, chan, user } = await seed(store);
    await history.detach(scope); // the client left: its place is now
    await say(store, chan.id, user.id, REPLAY_MAX + 3, "missed");
    const [[target, texts]] = batches(await history.replay(scope, ["#chan"]));
    assertEquals(target, "#Chan");
    assertEquals(texts.length, REPLAY_MAX + 1);
    assert(texts[0].startsWith("notice: 3 earlier lines you missed are not replayed"), texts[0]);
    assert(texts[0].includes("CHATHISTORY"));
    assertEquals(texts[1], "missed 3");
    const lines = await history.replay(scope, ["#chan"]);
    assertEquals(lines, [], "its place moved past them");
  });
});
