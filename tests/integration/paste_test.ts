/** Paste: an outgoing message too long or too many lines for the network goes out as a link. */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { startServer } from "../support/server.ts";

Deno.test("paste: long and many-line messages reach IRC as a link to their text", async () => {
  const irc = await startIrcServer();
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const bob = await RawIrcClient.connect(irc.port, "bob");
  try {
    const api = new ApiClient(server.url);
    await api.register("admin@example.com");
    // The host's profile sets the limits: 40 bytes and 2 lines.
    await api.post("/api/connection-profiles", {
      url: `irc://127.0.0.1:${irc.port}`,
      max_message_length: 40,
      max_bulk_message_size: 2,
    });
    await bob.join("#paste");
    const created = await api.post("/api/connections", {
      url: `irc://127.0.0.1:${irc.port}?nick=alice`,
      conversation_id: "#paste",
    });
    assertEquals(created.status, 200);
    await bob.waitFor((l) => l.command === "JOIN" && l.nick === "alice");
    const send = (message: string) =>
      api.post("/api/connection/irc-localhost/conversation/%23paste/messages", { message });

    assertEquals((await send("short and sweet")).status, 200);
    await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "short and sweet");

    const long = "a line that is much longer than forty bytes, so it is pasted";
    assertEquals((await send(long)).status, 200);
    const link = await bob.waitFor((l) =>
      l.command === "PRIVMSG" && l.params[1].includes("/file/")
    );
    // IRC sees what it is about: the first line (cut), its size, then the link.
    assert(
      link.params[1].startsWith(
        "a line that is much longer than forty bytes, so it is pasted (60 B) http",
      ),
      link.params[1],
    );
    const url = new URL(link.params[1].split(" ").at(-1)!);
    const file = await fetch(url);
    assertEquals(await file.text(), long);

    const lines = "one\ntwo\nthree";
    assertEquals((await send(lines)).status, 200);
    const second = await poll(
      "a second link",
      () =>
        bob.lines.filter((l) => l.command === "PRIVMSG" && l.params[1].includes("/file/"))
          .length === 2,
    );
    assert(second);
    const last = bob.lines.filter((l) => l.params[1]?.includes("/file/")).at(-1)!;
    assert(last.params[1].startsWith("one… (3 lines, 13 B) http"), last.params[1]);
    assertEquals(await (await fetch(last.params[1].split(" ").at(-1)!)).text(), lines);
  } finally {
    await bob.close();
    await server.close();
    await irc.close();
  }
});
