/**
 * A stored history for the history service's tests: jane's connection `irc-test` with `#Chan`
 * (ten messages from bob, a second apart, and a join between the fifth and sixth) and a private
 * conversation with bob, over a real SQLite store.
 */
import { type HistoryScope, historyService } from "../../../../bouncer/history/mod.ts";
import { EventBus } from "../../../../lib/bus.ts";
import { msgidOf } from "../../../../lib/msgid.ts";
import { storedFields } from "../../../../store/event_fields.ts";
import type { Store } from "../../../../store/mod.ts";
import { userWithConnection } from "../fakes.ts";

/** The first message's time (µs): 2026-01-01T00:00:00Z. */
export const T0 = Date.UTC(2026, 0, 1) * 1000;
/** The time of the i-th message of #Chan (0-based). */
export const at = (i: number) => T0 + i * 1_000_000;
/** As `timestamp=` writes it. */
export const stamp = (us: number) => `timestamp=${new Date(us / 1000).toISOString()}`;

export async function seed(store: Store) {
  const { user, connection } = await userWithConnection(store);
  const chan = await store.conversations.ensure(connection.id, "#chan", "#Chan");
  const bob = await store.conversations.ensure(connection.id, "bob", "bob");
  for (let i = 0; i < 10; i++) {
    await store.messages.append({
      conversation: chan.id,
      userId: user.id,
      from: "bob",
      type: "private",
      text: `message ${i}`,
      ts: at(i),
      unread: true,
    });
  }
  const join = storedFields("join", { nick: "carol" });
  await store.messages.append({
    conversation: chan.id,
    userId: user.id,
    type: "join",
    text: "",
    ...join,
    ts: at(5) + 500_000,
  });
  await store.messages.append({
    conversation: bob.id,
    userId: user.id,
    from: "bob",
    type: "private",
    text: "psst",
    ts: at(3) + 200_000,
  });
  await store.messages.flush();
  const bus = new EventBus();
  const history = historyService({ store, bus })!;
  const scope: HistoryScope = {
    userId: user.id,
    connection: { id: connection.id, connectionId: "irc-test" },
    client: "phone",
    nick: "jane",
  };
  const msgid = (i: number) => `msgid=${msgidOf(chan.id, at(i))}`;
  return { user, connection, chan, bob, bus, history, scope, msgid };
}
