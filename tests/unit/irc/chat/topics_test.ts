/**
 * Who set a channel's topic and when (irc/chat/topics.ts), as the inbound handlers keep it from a
 * fake connection's lines: the server's 332 and 333 on join, then a change someone makes.
 */
import { EventEmitter } from "node:events";
import { assertEquals } from "../../../support/assert.ts";
import { openStore } from "../../../../store/mod.ts";
import { aliceRecord, fakeConnection } from "../../../support/fake_connection.ts";
import { EventBus } from "../../../../lib/bus.ts";
import { attachInbound, serial } from "../../../../irc/chat/inbound/mod.ts";
import { topicSetter } from "../../../../irc/chat/topics.ts";
import type { IrcConnection } from "../../../../irc/engine/connection.ts";
import type { IrcClient } from "../../../../irc/engine/client.ts";
import { parseMessage } from "../../../../irc/protocol/message.ts";

Deno.test("topic setter: 333 after the join's topic, then each change's nick and time", async () => {
  const dir = await Deno.makeTempDir({ prefix: "parley-topic-" });
  const store = await openStore(dir);
  try {
    const { record } = await aliceRecord(store);
    const client = Object.assign(new EventEmitter(), {
      network: { options: {}, cap: { isEnabled: () => false, enabled: [] } },
    });
    const conn = fakeConnection(record, client) as unknown as IrcConnection;
    const run = serial("test");
    const lines = attachInbound(
      { store, bus: new EventBus() },
      conn,
      client as unknown as IrcClient,
      run,
    );
    const line = (text: string) => lines.take(parseMessage(text)!);
    const settle = async () => {
      await new Promise((r) => setTimeout(r, 0));
      await new Promise<void>((r) => run(() => Promise.resolve(r())));
    };

    assertEquals(topicSetter(conn, "#room"), undefined, "nothing told yet");
    line(":alice!a@h JOIN #Room");
    line(":irc.test 332 alice #Room :Welcome");
    await settle();
    assertEquals(topicSetter(conn, "#room"), {}, "a topic whose setter is not told yet");
    line(":irc.test 333 alice #Room bob!b@h 1700000000");
    await settle();
    assertEquals(topicSetter(conn, "#room"), { by: "bob", at: "2023-11-14T22:13:20.000Z" });

    line(":carol!c@h TOPIC #room :New");
    await settle();
    assertEquals(topicSetter(conn, "#room")?.by, "carol", "a change names who made it");
    // A nonsense time is left out, never shown as 1970.
    line(":irc.test 333 alice #room dave soon");
    await settle();
    assertEquals(topicSetter(conn, "#room"), { by: "dave" });
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
