/** bouncer/service/server.ts: an admin's `server notice`, published to every user. */
import { assertEquals } from "../../../support/assert.ts";
import type { TapEvent } from "../../../../protocol/events.ts";
import { withStore } from "../fakes.ts";
import { service } from "./service.ts";

Deno.test("bouncerserv server notice: to every user, bounded, with what to type", async () => {
  await withStore(async (store) => {
    const { as, bus } = service(store);
    const root = await store.users.create("root@example.com", "x", ["admin"]);
    const run = as(root);
    const heard: [number, TapEvent][] = [];
    bus.tap((uid, ev) => heard.push([uid, ev]));
    assertEquals(await run("server notice   "), [
      "Give the text to send.",
      'Usage: server notice <text> (type "help server notice")',
    ]);
    assertEquals((await run(`server notice ${"x".repeat(401)}`))[0], "At most 400 characters.");
    assertEquals(heard.length, 0);
    assertEquals(await run("server notice Maintenance at noon"), ["Sent to 1 user."]);
    const jane = await store.users.create("jane@example.com", "x", []);
    heard.length = 0;
    assertEquals(await run('server notice "Back  soon"'), ["Sent to 2 users."]);
    assertEquals(heard.map(([uid]) => uid).sort(), [root.id, jane.id].sort());
    assertEquals(heard[0][1], {
      event: "server_notice",
      from: "root@example.com",
      message: "Back  soon",
    });
  });
});
