/**
 * Each line a server sends is read once, by the transport, with the listener on and clients
 * attached: the lean path, the command handlers and the bouncer's relay all get that one message.
 */
import { assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { parsed } from "../../irc/protocol/message.ts";
import { ircLines } from "../../lib/metrics.ts";
import { Registration } from "../../irc/engine/registration.ts";

Deno.test("IRC: one parse per upstream line, with the listener on and two clients attached", async () => {
  const s = await setupBouncer();
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  const clients: BouncerClient[] = [];
  let restore = () => {};
  try {
    // What the client's registration is handed once registered.
    const handed: string[] = [];
    const handle = Registration.prototype.handle;
    Registration.prototype.handle = function (m) {
      handed.push(m.command);
      return handle.call(this, m);
    };
    restore = () => (Registration.prototype.handle = handle);
    await s.app.deps.irc.send(1, s.cid, "", "/join #once");
    await bob.join("#once");
    for (const name of ["one", "two"]) {
      const c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@${name}`, PASSWORD, []);
      await c.waitFor((l) => l.command === "366" && l.params[1] === "#once");
      clients.push(c);
    }
    const [reads, parses] = [ircLines.in, parsed.lines];
    // The test's clients read what they receive with the same parser.
    const received = () => clients.reduce((n, c) => n + c.lines.length, 0);
    const before = received();
    // Chat lines (the lean path), and lines of other handlers (a topic, a part, a notice).
    await bob.send(
      "PRIVMSG #once :a\r\nPRIVMSG #once :\x01ACTION b\x01\r\nTOPIC #once :c\r\n" +
        "NOTICE #once :d\r\nPRIVMSG alice :\x01VERSION\x01\r\nPART #once :e",
    );
    for (const c of clients) {
      await c.waitFor((l) => l.command === "PART" && l.prefix.startsWith("bob!"));
    }
    const read = ircLines.in - reads;
    assertEquals(read >= 6, true, `${read} lines read`);
    const byClients = received() - before;
    assertEquals(parsed.lines - parses - byClients, read);
    // Registration reads its own commands only, none of these.
    assertEquals(handed, [], "registration was handed no line of the join and the burst");
  } finally {
    restore();
    for (const c of clients) c.close();
    await bob.close();
    await s.close();
  }
});
