/**
 * Channel keys in the inbound handlers (irc/chat/inbound/: channel.ts, membership.ts, mod.ts): the
 * modes asked after the user's join but not after a rejoin, the key kept from RPL_CHANNELMODEIS
 * and from MODE +k, forgotten on -k, and a join the server refuses said in the channel, which is
 * then no longer joined; with a fake connection over a real store and bus.
 */
import { EventEmitter } from "node:events";
import { assert, assertEquals } from "../../../../support/assert.ts";
import { openStore, type Store } from "../../../../../store/mod.ts";
import { aliceRecord, fakeConnection } from "../../../../support/fake_connection.ts";
import { EventBus } from "../../../../../lib/bus.ts";
import type { BusEvent } from "../../../../../protocol/events.ts";
import { attachInbound, serial } from "../../../../../irc/chat/inbound/mod.ts";
import type { IrcConnection } from "../../../../../irc/engine/connection.ts";
import type { IrcClient } from "../../../../../irc/engine/client.ts";
import { parseMessage } from "../../../../../irc/protocol/message.ts";

Deno.test("inbound: channel keys asked, kept, forgotten; a refused join said", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "parley-inbound-keys-" });
  const store: Store = await openStore(dir);
  try {
    const { user, record } = await aliceRecord(store);
    const bus = new EventBus();
    const seen: BusEvent[] = [];
    bus.subscribe(user.id, (ev) => seen.push(ev));
    const client = new EventEmitter();
    const sent: string[] = [];
    const conn = {
      ...fakeConnection(record, client, ["PREFIX=(ov)@+", "CHANMODES=beI,k,l,imnpst"]),
      send: (line: string) => (sent.push(line), Promise.resolve()),
    };
    const run = serial("test");
    const lines = attachInbound(
      { store, bus },
      conn as unknown as IrcConnection,
      client as unknown as IrcClient,
      run,
    );
    const line = (text: string) => {
      const m = parseMessage(text)!;
      conn.upstream.see(m);
      lines.take(m);
    };
    const settle = async () => {
      await new Promise((r) => setTimeout(r, 0));
      await new Promise<void>((r) => run(() => Promise.resolve(r())));
      await store.messages.flush();
    };
    const conv = async (id: string) => (await store.conversations.get(record.id, id))!;
    const joined = async (channel: string) => {
      line(`:alice!a@h JOIN ${channel}`);
      line(`:irc.test 353 alice = ${channel} :alice bob`);
      line(`:irc.test 366 alice ${channel} :End of NAMES list`);
      await settle();
    };

    await t.step("the user's join asks the channel's modes; their answer has its key", async () => {
      await joined("#Keyed");
      assert(sent.includes("MODE #Keyed"), sent.join("\n"));
      line(":irc.test 324 alice #Keyed +knt s3cret");
      await settle();
      assertEquals((await conv("#keyed")).key, "s3cret");
      // Hidden (`*`), or no parameter: the key kept stays.
      line(":irc.test 324 alice #Keyed +knt *");
      line(":irc.test 324 alice #Keyed +kn");
      await settle();
      assertEquals((await conv("#keyed")).key, "s3cret");
      // Modes without `k`: the channel has no key.
      line(":irc.test 324 alice #Keyed +nt");
      await settle();
      assertEquals((await conv("#keyed")).key, "");
    });

    await t.step(
      "MODE +k keeps the key, -k forgets it; a key that is none is not kept",
      async () => {
        line(":bob!b@h MODE #Keyed +lk 10 n3w");
        await settle();
        assertEquals((await conv("#keyed")).key, "n3w");
        line(`:bob!b@h MODE #Keyed +k ${"k".repeat(101)}`);
        await settle();
        assertEquals((await conv("#keyed")).key, "n3w", "too long: not a key");
        line(":bob!b@h MODE #Keyed -k n3w");
        await settle();
        assertEquals((await conv("#keyed")).key, "");
        // Not for a channel the user is not in as far as Parley keeps.
        await store.conversations.ensure(record.id, "#gone", "#gone");
        line(":irc.test 324 alice #gone +k g0ne");
        await settle();
        assertEquals((await conv("#gone")).key, "");
      },
    );

    await t.step("a rejoin does not ask the modes again", async () => {
      sent.length = 0;
      lines.rejoining(["#Keyed"]);
      await joined("#Keyed");
      assertEquals(sent.filter((l) => l.startsWith("MODE")), []);
    });

    await t.step("a refused rejoin is said in the channel, which is then not joined", async () => {
      await store.conversations.setKey((await conv("#keyed")).id, "0ld");
      lines.rejoining(["#Keyed"]);
      seen.length = 0;
      line(":irc.test 475 alice #Keyed :Cannot join channel (+k) -- Wrong channel key");
      await settle();
      const after = await conv("#keyed");
      assertEquals([after.joined, after.key], [false, ""]);
      const frozen = seen.find((e) => e.event === "state" && e.type === "frozen");
      assertEquals(
        frozen && "frozen" in frozen ? frozen.frozen : undefined,
        "Cannot join channel (+k) -- Wrong channel key",
      );
      const page = await store.messages.historyOf(after.id, { limit: 10 });
      const said = page.messages.filter((m) => m.type === "error").map((m) => m.message);
      assertEquals(said, [
        "Could not join #Keyed: Cannot join channel (+k) -- Wrong channel key. " +
        "Join it with /join #Keyed <key>.",
      ]);
      // The members waited for on a reconnect are not waited for: the user is not there.
      assertEquals(await lines.members("#keyed"), undefined);
    });

    await t.step(
      "a registered nick, TLS, too many channels, a held channel: refusals too",
      async () => {
        const refusals = [
          ":irc.test 477 alice #reg :Cannot join channel (+r) - you need to be identified",
          ":irc.test 489 alice #tls :Cannot join channel; SSL users only (+z)",
          ":irc.test 405 alice #many :You have joined too many channels",
          ":irc.test 437 alice #held :Nick/channel is temporarily unavailable",
        ];
        const names = refusals.map((r) => r.split(" ")[3]);
        for (const name of names) await joined(name);
        // A reconnect: each is joined again, and refused.
        lines.rejoining(names);
        for (const r of refusals) line(r);
        // A 437 for a nick (a NICK refused) concerns no channel.
        line(":irc.test 437 alice bobby :Nick/channel is temporarily unavailable");
        await settle();
        for (const r of refusals) {
          const name = r.split(" ")[3];
          const after = await conv(name);
          assertEquals(after.joined, false, name);
          const page = await store.messages.historyOf(after.id, { limit: 10 });
          assertEquals(
            page.messages.filter((m) => m.type === "error").map((m) => m.message),
            [`Could not join ${name}: ${r.slice(r.indexOf(" :") + 2).replace(/[.\s]+$/, "")}.`],
          );
        }
        assertEquals(await store.conversations.get(record.id, "bobby"), undefined);
      },
    );

    await t.step("a refusal changes nothing where the user is, or for a new channel", async () => {
      await joined("#In");
      line(":irc.test 474 alice #In :Cannot join channel (+b)");
      line(":irc.test 471 alice #new :Cannot join channel (+l)");
      await settle();
      assertEquals((await conv("#in")).joined, true);
      assertEquals(await store.conversations.get(record.id, "#new"), undefined);
      const page = await store.messages.historyOf((await conv("#in")).id, { limit: 10 });
      assertEquals(page.messages.filter((m) => m.type === "error"), []);
    });
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
