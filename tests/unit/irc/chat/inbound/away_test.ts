/**
 * Who is away, from irc/chat/inbound/ with a fake connection (a real store and bus, the server's
 * lines parsed as the transport parses them): one WHO after the user's join in a channel small enough, its
 * answer and AWAY lines (`away-notify`) published as `away` state events and kept with the members,
 * following nick changes and quits.
 */
import { EventEmitter } from "node:events";
import { assertEquals } from "../../../../support/assert.ts";
import { openStore } from "../../../../../store/mod.ts";
import { aliceRecord, fakeConnection } from "../../../../support/fake_connection.ts";
import { EventBus } from "../../../../../lib/bus.ts";
import type { BusEvent } from "../../../../../protocol/events.ts";
import { attachInbound, serial } from "../../../../../irc/chat/inbound/mod.ts";
import { MAX_WHO_MEMBERS } from "../../../../../irc/chat/presence.ts";
import type { IrcConnection } from "../../../../../irc/engine/connection.ts";
import type { IrcClient } from "../../../../../irc/engine/client.ts";
import { parseMessage } from "../../../../../irc/protocol/message.ts";

Deno.test("inbound: who is away, from WHO after joining and from AWAY lines", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "parley-away-" });
  const store = await openStore(dir);
  try {
    const { user, record } = await aliceRecord(store);
    const bus = new EventBus();
    const seen: BusEvent[] = [];
    bus.subscribe(user.id, (ev) => seen.push(ev));
    const client = Object.assign(new EventEmitter(), {
      network: { options: {}, cap: { isEnabled: () => false, enabled: [] } },
    });
    const sent: string[] = [];
    // The WHO lines sent (the user's join also asks the channel's modes: channel_keys_test.ts).
    const whos = () => sent.filter((l) => l.startsWith("WHO "));
    const conn = {
      ...fakeConnection(record, client),
      send: (line: string) => (sent.push(line), Promise.resolve()),
    } as unknown as IrcConnection;
    const run = serial("test");
    const lines = attachInbound({ store, bus }, conn, client as unknown as IrcClient, run);
    const settle = async () => {
      await new Promise((r) => setTimeout(r, 0));
      await new Promise<void>((r) => run(() => Promise.resolve(r())));
    };
    const aways = () =>
      seen.flatMap((e) =>
        e.event === "state" && e.type === "away" ? [[e.nick, e.away, e.message ?? ""]] : []
      );
    const awayMembers = async (channel: string) =>
      (await lines.members(channel))!.filter((m) => "away" in m && m.away).map((m) => m.nick);
    const line = (text: string) => lines.take(parseMessage(text)!);
    const names = (channel: string, ...nicks: string[]) => {
      line(`:irc.test 353 alice = ${channel} :${nicks.join(" ")}`);
      line(`:irc.test 366 alice ${channel} :End of NAMES list`);
    };

    await t.step("after the user's join, one WHO of the channel; not for a /names", async () => {
      line(":alice!a@h JOIN #Test");
      names("#Test", "alice", "bob", "carol");
      await settle();
      assertEquals(whos(), ["WHO #Test"]);
      names("#Test", "alice", "bob", "carol");
      await settle();
      assertEquals(whos(), ["WHO #Test"], "once per join");
    });

    await t.step("not for a channel over the size", async () => {
      const many = Array.from({ length: MAX_WHO_MEMBERS + 1 }, (_, i) => `n${i}`);
      line(":alice!a@h JOIN #big");
      names("#big", "alice", ...many);
      await settle();
      assertEquals(whos(), ["WHO #Test"]);
    });

    await t.step("the WHO's answer: who is away is published and kept", async () => {
      line(":irc.test 352 alice #Test ~a h irc.test alice H :0 Alice");
      line(":irc.test 352 alice #Test ~b h irc.test bob G :0 Bob");
      line(":irc.test 352 alice #Test ~c h irc.test carol H@ :0 Carol");
      line(":irc.test 315 alice #Test :End of WHO list");
      await settle();
      assertEquals(aways(), [["bob", true, ""]]);
      assertEquals(await awayMembers("#test"), ["bob"]);
    });

    await t.step("AWAY lines: away with a message, back, nothing twice", async () => {
      line(":carol!c@h AWAY :lunch");
      line(":bob!b@h AWAY");
      line(":bob!b@h AWAY");
      await settle();
      assertEquals(aways().slice(1), [["carol", true, "lunch"], ["bob", false, ""]]);
      assertEquals(await awayMembers("#test"), ["carol"]);
    });

    await t.step("away follows a nick change and ends with a quit", async () => {
      line(":carol!c@h NICK carla");
      await settle();
      assertEquals(await awayMembers("#test"), ["carla"]);
      line(":carla!c@h QUIT :bye");
      line(":carla!c@h JOIN #test");
      await settle();
      assertEquals(await awayMembers("#test"), [], "back in, not known to be away");
    });
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
