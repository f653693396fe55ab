/**
 * draft/pre-away: a client that says `AWAY *` (before registering or after) is attached but not
 * there, so automatic away marks the user away as if it had left; a bare AWAY counts it again;
 * `*` never reaches the server as an away message; a message set before registration is the
 * user's away once attached; without the capability, AWAY before registration is 451. Real
 * ngircd, real listener, raw clients.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { poll } from "../support/poll.ts";
import { AWAY_MESSAGE } from "../../push/away.ts";
import { pushFor } from "../../push/mod.ts";

Deno.test("bouncer: draft/pre-away", async (t) => {
  const s = await setupBouncer();
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  const clients: BouncerClient[] = [];
  /** Registers with SASL and `caps`, sending `early` lines once the capabilities are acked. */
  const attach = async (caps: string[], early: string[]) => {
    const c = await BouncerClient.connect(s.port, "app");
    clients.push(c);
    const name = `${EMAIL}/${s.cid}@app${clients.length}`;
    return await BouncerClient.register(c, name, PASSWORD, caps, early);
  };
  /** alice's away message as bob's WHOIS tells it (301 before the 318 that ends it), or null. */
  const awayText = async () => {
    const from = bob.lines.length;
    await bob.send("WHOIS alice");
    await bob.waitFor((l) => l.command === "318" && bob.lines.indexOf(l) >= from);
    return bob.lines.slice(from).find((l) => l.command === "301")?.params.at(-1) ?? null;
  };
  try {
    pushFor(s.app.deps).away.graceMs = 0;
    const on = await s.api.post("/api/push/settings", { auto_away: true });
    assertEquals(on.body, { auto_away: true });
    // Nobody there yet: the setting marks alice away; a plain client brings her back.
    const plainClient = await attach([], []);
    await poll("alice back for the plain client", async () => (await awayText()) === null);

    let app: BouncerClient;
    await t.step("offered in CAP LS", () => {
      const ls = plainClient.lines.filter((l) => l.command === "CAP" && l.params[1] === "LS");
      assert(ls.some((l) => l.params.at(-1)!.split(" ").includes("draft/pre-away")));
    });

    await t.step("AWAY * before registering: attached, not counted as there", async () => {
      plainClient.close();
      app = await attach(["draft/pre-away"], ["AWAY *"]);
      assert(!app.lines.some((l) => l.command === "451"), "the early AWAY was refused");
      await poll(
        "alice away with only the app attached",
        async () => (await awayText()) === AWAY_MESSAGE,
      );
    });

    await t.step("a bare AWAY counts the app again: 305, and alice is back", async () => {
      await app.send("AWAY");
      await app.waitFor((l) => l.command === "305");
      await poll("alice back", async () => (await awayText()) === null);
    });

    await t.step("AWAY * after registering: 306, and alice goes away again", async () => {
      await app.send("AWAY *");
      await app.waitFor((l) => l.command === "306");
      await poll("alice away again", async () => (await awayText()) === AWAY_MESSAGE);
      await app.send("AWAY");
      await app.waitFor((l) => l.command === "305");
      await poll("alice back again", async () => (await awayText()) === null);
    });

    await t.step("`*` never reaches the server as an away message", async () => {
      const off = await s.api.post("/api/push/settings", { auto_away: false });
      assertEquals(off.body, { auto_away: false });
      const from = app.lines.length;
      await app.send("AWAY *");
      await app.waitFor((l) => l.command === "306" && app.lines.indexOf(l) >= from);
      // The app's next line goes to the server after anything it sent before.
      await app.send("NOTICE bob :after the away");
      await bob.waitFor((l) => l.command === "NOTICE" && l.params[1] === "after the away");
      assertEquals(await awayText(), null);
      await app.send("AWAY");
    });

    await t.step("a message set before registering is alice's away once attached", async () => {
      const train = await attach(["draft/pre-away"], ["AWAY :on the train"]);
      await train.waitFor((l) => l.command === "306");
      await poll("alice away on the train", async () => (await awayText()) === "on the train");
      await train.send("AWAY");
      await train.waitFor((l) => l.command === "305");
      assertEquals(await awayText(), null);
    });

    await t.step("without the capability, AWAY before registering is 451", async () => {
      const old = await attach([], ["AWAY *"]);
      const refused = old.lines.find((l) => l.command === "451");
      assert(refused, "no 451");
      assertStringIncludes(refused.raw, "You have not registered");
    });
  } finally {
    for (const c of clients) c.close();
    await bob.close();
    await s.close();
  }
});
