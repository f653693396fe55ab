/**
 * SASL 3.2 (with 3.1's numerics), sentence by sentence, against the listener. docs/bouncer.md
 * lists each MUST and SHOULD with the step that tests it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncerOn } from "../support/bouncer.ts";
import { BouncerClient, plain } from "../support/bouncer_client.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";

Deno.test("spec sasl 3.2: mechanisms in CAP LS, no reauthentication, a reason before closing", async (t) => {
  const irc = startHostileIrc();
  const s = await setupBouncerOn(irc.url);
  const user = `${EMAIL}/${s.cid}`;
  try {
    await t.step("CAP LS 302 lists the mechanisms, comma-separated (SHOULD, MUST)", async () => {
      const c = await BouncerClient.connect(s.port);
      await c.send("CAP LS 302");
      const ls = await c.waitFor((l) => l.command === "CAP" && l.params[1] === "LS");
      const sasl = ls.params.at(-1)!.split(" ").find((w) => w.startsWith("sasl")) ?? "";
      assert(sasl.startsWith("sasl="), ls.raw);
      const mechanisms = sasl.slice(5).split(",");
      assert(mechanisms.includes("PLAIN"), sasl);
      for (const m of mechanisms) assert(/^[A-Z0-9_-]+$/.test(m), m);
      c.close();
    });

    await t.step("a mechanism not offered: 908 with the list, then 904", async () => {
      const c = await BouncerClient.connect(s.port);
      await c.send("CAP REQ :sasl");
      await c.waitFor((l) => l.command === "CAP" && l.params[1] === "ACK");
      await c.send("AUTHENTICATE SCRAM-SHA-256");
      const list = await c.waitFor((l) => l.command === "908");
      assertEquals(list.params[1], "PLAIN");
      await c.waitFor((l) => l.command === "904");
      c.close();
    });

    await t.step("authenticating again: 907, an error, not silence (MUST)", async () => {
      const c = await BouncerClient.attach(s.port, `${user}@sasl`, PASSWORD);
      const from = c.lines.length;
      await c.send("AUTHENTICATE PLAIN");
      const err = await c.waitFor((l) => /^9\d\d$/.test(l.command), from);
      assertEquals(err.command, "907");
      c.close();
    });

    await t.step("a failure that closes the connection gives its reason first (MUST)", async () => {
      const c = await BouncerClient.connect(s.port);
      await c.send("CAP LS 302");
      await c.send("NICK x");
      await c.send("USER u 0 * :U");
      await c.send("CAP REQ :sasl");
      await c.waitFor((l) => l.command === "CAP" && l.params[1] === "ACK");
      await c.send("AUTHENTICATE PLAIN");
      await c.waitFor((l) => l.command === "AUTHENTICATE");
      await c.send(`AUTHENTICATE ${plain(user, "wrong password")}`);
      await c.waitClosed();
      const fail = c.lines.findIndex((l) => l.command === "904");
      const error = c.lines.findIndex((l) => l.command === "ERROR");
      assert(fail >= 0 && error > fail, c.lines.map((l) => l.raw).join("\n"));
      assert(c.lines[fail].params.at(-1)!.length > 0, "with its reason");
    });
  } finally {
    await s.close();
    await irc.close();
  }
});
