/**
 * A client without chathistory is sent what it missed when it attaches, read from the store. A
 * line that comes while that is read is too late for the replay: it still reaches the client,
 * once, after the replay.
 */
import { assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { poll } from "../support/poll.ts";

Deno.test("bouncer: a line that comes while the replay is read reaches the client", async () => {
  const read = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  // The real replay, held back after the store was read: what comes meanwhile is not in it.
  const s = await setupBouncer({}, (real) => ({
    ...real,
    replay: async (scope, targets) => {
      const lines = await real.replay(scope, targets);
      read.resolve();
      await gate.promise;
      return lines;
    },
  }));
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  let c: BouncerClient | undefined;
  try {
    await s.app.deps.irc.send(1, s.cid, "", "/join #gap");
    await bob.join("#gap");
    await bob.waitForMember("#gap", "alice");
    await bob.say("#gap", "before the attach");
    const messages = async () => {
      const r = await s.api.get(`/api/connection/${s.cid}/conversation/%23gap/messages`);
      return (r.body.messages as { message: string }[]).map((m) => m.message);
    };
    await poll(
      "the first line is stored",
      async () => (await messages()).includes("before the attach"),
    );

    const attaching = BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@laptop`, PASSWORD, [
      "message-tags",
    ]);
    await read.promise;
    await bob.say("#gap", "while the replay is read");
    await poll(
      "the second line is stored",
      async () => (await messages()).includes("while the replay is read"),
    );
    gate.resolve();
    c = await attaching;

    await c.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "while the replay is read");
    await bob.say("#gap", "after the attach");
    await c.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "after the attach");
    const said = c.lines.filter((l) => l.command === "PRIVMSG").map((l) => l.params[1]);
    assertEquals(said, ["before the attach", "while the replay is read", "after the attach"]);
  } finally {
    gate.resolve();
    c?.close();
    await bob.close();
    await s.close();
  }
});
