/**
 * bouncer/service/channel.ts: `channel status` as stored, and `channel update`'s flags (soju's)
 * read, checked, stored and told.
 */
import { assertEquals } from "../../../support/assert.ts";
import { userWithConnection, withStore } from "../fakes.ts";
import { service } from "./service.ts";

Deno.test("bouncerserv channel status: each channel's state and unread count", async () => {
  await withStore(async (store) => {
    const { as } = service(store);
    const { user, connection } = await userWithConnection(store);
    const run = as(user, "irc-test");
    assertEquals(await run("channel status"), ["irc-test has no channels."]);
    const joined = await store.conversations.ensure(connection.id, "#joined", "#Joined");
    await store.conversations.setJoined(joined.id, true);
    await store.conversations.ensure(connection.id, "#left", "#left");
    const det = await store.conversations.ensure(connection.id, "#quiet", "#quiet");
    await store.conversations.setDetach(det.id, { detached: true });
    await store.conversations.ensure(connection.id, "bob", "bob");
    assertEquals((await run("channel status")).sort(), [
      "#Joined: joined, 0 unread",
      "#left: not joined, 0 unread",
      "#quiet: detached, 0 unread",
    ]);
  });
});

Deno.test("bouncerserv channel update: each flag read and checked, then stored", async () => {
  await withStore(async (store) => {
    const { as } = service(store);
    const { user, connection } = await userWithConnection(store);
    await store.conversations.ensure(connection.id, "#chan", "#Chan");
    const run = as(user, "irc-test");
    const first = async (line: string) => (await run(line))[0];
    assertEquals(await first("channel update"), "Name one channel.");
    assertEquals(await first("channel update #a #b -detached true"), "Name one channel.");
    assertEquals(await first("channel update #chan"), "Give at least one flag to change.");
    assertEquals(
      await first("channel update #chan -detached maybe"),
      "-detached takes true or false.",
    );
    assertEquals(
      await first("channel update #chan -relay-detached loud"),
      "-relay-detached takes one of: message, highlight, none, default.",
    );
    assertEquals(
      await first("channel update #chan -reattach-on always"),
      "-reattach-on takes one of: message, highlight, none, default.",
    );
    assertEquals(
      await first("channel update #chan -detach-after soon"),
      "-detach-after takes a duration such as 30s, 1h30m or 0.",
    );
    assertEquals((await run("channel update #chan -detached maybe")).length, 2, "with the usage");
    assertEquals(await run("channel update #nope -detached true"), ["No such channel: #nope"]);
    assertEquals(
      await run("channel update #CHAN -detached true -relay-detached message -detach-after 1h30m"),
      ["#CHAN is detached; relay-detached message, reattach-on default, detach-after 5400s."],
    );
    assertEquals((await store.conversations.get(connection.id, "#chan"))!.detach, {
      detached: true,
      relayDetached: "message",
      reattachOn: "",
      detachAfter: 5400,
    });
    await run("channel update #chan -relay-detached default -reattach-on highlight");
    const stored = (await store.conversations.get(connection.id, "#chan"))!.detach;
    assertEquals([stored.relayDetached, stored.reattachOn, stored.detached], [
      "",
      "highlight",
      true,
    ]);
  });
});
