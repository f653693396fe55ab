/**
 * bouncer/search.ts over a real store and its search index: `SEARCH` attributes read and checked
 * (a FAIL for each wrong one), and the matches as a `soju.im/search` batch, oldest first, each
 * addressed as it was live, a channel by its name as IRC spells it (`#Chan`).
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { search } from "../../../bouncer/search.ts";
import { parseMessage } from "../../../irc/protocol/message.ts";
import type { Store } from "../../../store/mod.ts";
import { withStore } from "./fakes.ts";
import { at, seed } from "./history/history.ts";

async function setup(store: Store) {
  const seeded = await seed(store);
  await store.messages.append({
    conversation: seeded.bob.id,
    userId: seeded.user.id,
    from: "jane",
    type: "private",
    text: "psst back",
    ts: at(3) + 300_000,
  });
  await store.messages.append({
    conversation: seeded.chan.id,
    userId: seeded.user.id,
    from: "carol",
    type: "action",
    text: "waves a message",
    ts: at(9) + 100_000,
  });
  await store.messages.flush();
  await store.messages.searchable?.();
  const scope: Parameters<typeof search>[1] = {
    userId: seeded.user.id,
    connectionId: "irc-test",
    nick: "jane",
    isChannel: (name) => name.startsWith("#"),
  };
  return { ...seeded, scope };
}

/** The batch's lines as `target <from> text`, checking the batch around them. */
function found(lines: string[]): string[] {
  const open = parseMessage(lines[0])!;
  assertEquals([open.command, open.params[1]], ["BATCH", "soju.im/search"]);
  const id = open.params[0].slice(1);
  assertEquals(lines.at(-1), `BATCH -${id}`);
  return lines.slice(1, -1).map((l) => {
    const m = parseMessage(l)!;
    assertEquals(m.tags.get("batch"), id);
    assert(m.tags.get("time") && m.tags.get("msgid"), l);
    return `${m.params[0]} <${m.prefix}> ${m.params[1]}`;
  });
}

Deno.test("search: a wrong attribute is a FAIL saying what", async () => {
  await withStore(async (store) => {
    const { scope } = await setup(store);
    const cases: [string, string][] = [
      ["text=x;colour=red", "INVALID_PARAMS :Unknown attribute"],
      ["text=x;before=yesterday", "INVALID_PARAMS :Not a timestamp"],
      ["text=x;after=", "INVALID_PARAMS :Not a timestamp"],
      ["text=x;limit=0", "INVALID_PARAMS :Not a limit"],
      ["text=x;limit=1.5", "INVALID_PARAMS :Not a limit"],
      ["text=x;limit=ten", "INVALID_PARAMS :Not a limit"],
      ["in=#chan", "INVALID_PARAMS :Say what to search for"],
      ["text=;from=", "INVALID_PARAMS :Say what to search for"],
    ];
    for (const [attrs, expected] of cases) {
      assertEquals(await search(store, scope, attrs), [`FAIL SEARCH ${expected}`], attrs);
    }
    const blind = Object.create(store, {
      messages: { value: Object.create(store.messages, { search: { value: undefined } }) },
    }) as Store;
    assertEquals(await search(blind, scope, "text=x"), [
      "FAIL SEARCH TEMPORARILY_UNAVAILABLE :Search is not available",
    ]);
  });
});

Deno.test("search: matches oldest first, each to its target as it was live", async () => {
  await withStore(async (store) => {
    const { scope } = await setup(store);
    assertEquals(found(await search(store, scope, "text=psst")), [
      "jane <bob> psst", // bob's private message was sent to jane
      "bob <jane> psst back", // jane's own went to bob
    ]);
    const inChan = found(await search(store, scope, "text=message;in=#CHAN;limit=3"));
    assertEquals(inChan, [
      "#Chan <bob> message 8",
      "#Chan <bob> message 9",
      "#Chan <carol> \x01ACTION waves a message\x01",
    ]);
    assertEquals(found(await search(store, scope, "from=carol")).length, 1);
    const before = new Date(at(2) / 1000).toISOString();
    assertEquals(found(await search(store, scope, `text=message;before=${before}`)), [
      "#Chan <bob> message 0",
      "#Chan <bob> message 1",
    ]);
    assertEquals(found(await search(store, scope, "text=nothing-like-it")), []);
  });
});
