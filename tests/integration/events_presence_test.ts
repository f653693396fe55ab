/**
 * A page's `presence` on its /events socket, for automatic away: a page that says it is not looked
 * at stops counting as the user being there (the user goes away when no other page or IRC client
 * is), says so again and counts; a request without a boolean `here` is answered with where it is
 * wrong. Real ngircd, the real app in process, real sockets.
 */
import { assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { EventSocket } from "../support/events.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { AWAY_MESSAGE } from "../../push/away.ts";
import { pushFor } from "../../push/mod.ts";

Deno.test("events: a page out of view does not count for automatic away", async (t) => {
  const irc = await startIrcServer();
  const app = await startApp({ PARLEY_IRC_ALLOW_PRIVATE: "1", PARLEY_TEST_FAST_IRC: "1" });
  const server = await app.listen();
  const tabs: EventSocket[] = [];
  let bob: RawIrcClient | undefined;
  try {
    const api = app.client();
    await api.register("alice@example.com");
    const made = await api.post("/api/connections", {
      url: `irc://127.0.0.1:${irc.port}?nick=alice`,
    });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    bob = await RawIrcClient.connect(irc.port, "bob");
    /** alice's away message as bob's WHOIS tells it, or null; undefined while she is not on. */
    const away = async () => {
      const from = bob!.lines.length;
      await bob!.send("WHOIS alice");
      await bob!.waitFor((l) => l.command === "318" && bob!.lines.indexOf(l) >= from);
      const lines = bob!.lines.slice(from);
      if (!lines.some((l) => l.command === "311")) return undefined;
      return lines.find((l) => l.command === "301")?.params.at(-1) ?? null;
    };
    const open = async () => {
      const base = `http://127.0.0.1:${server.port}`;
      const tab = await EventSocket.open({ base, cookieHeader: api.cookieHeader });
      tabs.push(tab);
      return tab;
    };
    const desk = await open();
    await poll("alice on IRC", async () => (await away()) !== undefined);
    pushFor(app.deps).away.graceMs = 0;
    assertEquals((await api.post("/api/push/settings", { auto_away: true })).status, 200);
    assertEquals(await away(), null, "the desk's page is looked at");

    await t.step("out of view: alice goes away", async () => {
      const answer = await desk.request({ method: "presence", here: false });
      assertEquals([answer.event, answer.here, answer.errors], ["presence", false, undefined]);
      await poll("alice away", async () => (await away()) === AWAY_MESSAGE);
    });

    await t.step("in view again: alice is back", async () => {
      await desk.request({ method: "presence", here: true });
      await poll("alice back", async () => (await away()) === null);
    });

    await t.step("another page looked at keeps her there", async () => {
      const laptop = await open();
      await desk.request({ method: "presence", here: false });
      // What automatic away counts, told before the answer: the laptop's page alone.
      const uid = (await app.deps.store.users.byEmail("alice@example.com"))!.id;
      assertEquals([app.deps.bus.listenerCount(uid), app.deps.bus.hereCount(uid)], [2, 1]);
      assertEquals(await away(), null);
      // Only once the laptop's page closes is nobody there.
      await laptop.close();
      await poll("alice away once the laptop closed", async () => (await away()) === AWAY_MESSAGE);
      await desk.request({ method: "presence", here: true });
      await poll("alice back with the desk", async () => (await away()) === null);
    });

    await t.step("`here` must be true or false", async () => {
      const answer = await desk.request({ method: "presence", here: "yes" });
      assertEquals(answer.event, "presence");
      assertEquals(answer.errors, [{ message: "Invalid input.", path: "/here" }]);
    });
  } finally {
    for (const tab of tabs) await tab.close();
    await bob?.close();
    pushFor(app.deps).away.stop();
    await server.stop();
    await app.close();
    await irc.close();
  }
});
