/**
 * The user's lines waiting behind flood control are bounded: past the bound a send is refused at
 * once with a clear error, while the lines already waiting still go out in turn. Production
 * pacing (5 lines, then one every 2 s), a real ngircd.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { startApp } from "../support/app.ts";
import { MAX_USER_LINES } from "../../irc/engine/connection.ts";

Deno.test("a flood of sends: the bound waits its turn, the rest is refused at once", async () => {
  const irc = await startIrcServer();
  const t = await startApp();
  const bob = await RawIrcClient.connect(irc.port, "bob");
  try {
    const api = t.client();
    await api.register("flood@example.com");
    await bob.join("#flood");
    const made = await api.post("/api/connections", {
      url: `${irc.url}?nick=flooder`,
      conversation_id: "#flood",
    });
    const cid = made.body.connection_id as string;
    await bob.waitFor((l) => l.command === "JOIN" && l.nick === "flooder");

    const extra = 50;
    const settled: { status: number; body: { errors?: unknown[] } }[] = [];
    const path = `/api/connection/${cid}/conversation/%23flood/messages`;
    for (let i = 0; i < MAX_USER_LINES + extra; i++) {
      void api.post(path, { message: `line ${i}` }).then((r) => settled.push(r));
    }
    // The first lines go out at once; those past the bound are answered at once; the others
    // wait their turn (half an hour of them at this pace).
    await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1].startsWith("line "));
    const refused = () => settled.filter((r) => r.status === 400);
    await poll("the refusals answered", () => refused().length >= extra - 10, 30_000);
    assertEquals(refused()[0].body.errors?.[0], {
      message:
        `${MAX_USER_LINES} lines are waiting to be sent already: try again once they are out.`,
      path: "/body/message",
    });
    // Answered so far: the refusals, and the lines written at once (the burst, and one a 2 s).
    const written = settled.filter((r) => r.status === 200).length;
    assert(written <= 10, `${written} written`);
    assertEquals(settled.length, refused().length + written);
    assert(refused().length <= extra, `${refused().length} refused of ${extra} past the bound`);
    // The server still takes other requests meanwhile.
    assertEquals((await api.get("/api/connections")).status, 200);
  } finally {
    await bob.close();
    await t.close();
    await irc.close();
  }
});
