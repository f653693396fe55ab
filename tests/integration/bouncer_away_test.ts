/**
 * Automatic away counts IRC clients attached through the listener as present, as it counts
 * browsers: the user goes away when the last one leaves, comes back when one attaches, and
 * turning the setting off clears the away it set. Real ngircd, real listener, raw clients.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { poll } from "../support/poll.ts";
import { AWAY_MESSAGE } from "../../push/away.ts";
import { pushFor } from "../../push/mod.ts";

Deno.test("bouncer: automatic away counts attached IRC clients", async (t) => {
  const s = await setupBouncer();
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  const clients: BouncerClient[] = [];
  const attach = async () => {
    const c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@irssi`, PASSWORD);
    clients.push(c);
    return c;
  };
  // Whether bob's WHOIS of alice says she is away (301 before the 318 that ends it).
  const away = async () => {
    const from = bob.lines.length;
    await bob.send("WHOIS alice");
    await bob.waitFor((l) => l.command === "318" && bob.lines.indexOf(l) >= from);
    return bob.lines.slice(from).some((l) => l.command === "301");
  };
  try {
    pushFor(s.app.deps).away.graceMs = 0;
    const irssi = await attach();
    const on = await s.api.post("/api/push/settings", { auto_away: true });
    assertEquals(on.body, { auto_away: true });

    await t.step("the last IRC client leaving, with no browser, is going away", async () => {
      assertEquals(await away(), false);
      irssi.close();
      await poll("alice away", away);
      assertStringIncludes(bob.lines.findLast((l) => l.command === "301")!.raw, AWAY_MESSAGE);
    });

    await t.step("an IRC client attaching is coming back", async () => {
      await attach();
      await poll("alice back", async () => !(await away()));
    });

    await t.step("turning automatic away off clears the away it set", async () => {
      clients.at(-1)!.close();
      await poll("alice away again", away);
      const off = await s.api.post("/api/push/settings", { auto_away: false });
      assertEquals(off.body, { auto_away: false });
      await poll("alice back with the setting off", async () => !(await away()));
    });
  } finally {
    for (const c of clients) c.close();
    await bob.close();
    await s.close();
  }
});
