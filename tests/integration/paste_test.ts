/** Long messages go out as a link to a pasted text file: the real daemon, ngircd and a raw client. */
import { assert, assertEquals } from "../support/assert.ts";
import { adminAndUser } from "../support/api.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { startServer } from "../support/server.ts";

Deno.test("paste: a long or many-line message is sent as the URL of its text", async (t) => {
  const irc = await startIrcServer();
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const bob = await RawIrcClient.connect(irc.port, "bob");
  try {
    const { admin, user } = await adminAndUser(server.url);
    await bob.join("#test");
    const res = await user.post("/api/connections", {
      url: `irc://127.0.0.1:${irc.port}?nick=alice`,
      conversation_id: "#test",
    });
    assertEquals(res.status, 200, JSON.stringify(res.body));
    await bob.waitFor((l) => l.command === "JOIN" && l.nick === "alice");
    const path = "/api/connection/irc-localhost/conversation/%23test/messages";
    const send = async (message: string) => {
      const r = await user.post(path, { message });
      assertEquals(r.status, 200, JSON.stringify(r.body));
    };
    // waitFor also finds lines already seen, so each answer is taken once.
    const taken = new Set<unknown>();
    const received = async () => {
      const line = await bob.waitFor((l) =>
        l.command === "PRIVMSG" && l.nick === "alice" && !taken.has(l)
      );
      taken.add(line);
      return line.params[1];
    };

    await t.step("a short message goes out as it is", async () => {
      await send("just a short one");
      assertEquals(await received(), "just a short one");
    });

    await t.step("over 512 bytes: the URL of a text file with the whole message", async () => {
      const long = "word ".repeat(120).trim();
      await send(long);
      const url = await received();
      assert(url.startsWith(`${server.url}/api/files/`), url);
      const file = await fetch(url);
      assertEquals(file.headers.get("content-type"), "text/plain; charset=utf-8");
      assertEquals(await file.text(), long);
    });

    await t.step("more than 3 lines: pasted too", async () => {
      const text = "one\ntwo\nthree\nfour";
      await send(text);
      const url = await received();
      assertEquals(await (await fetch(url)).text(), text);
      const listed = await user.get("/api/files");
      assertEquals(listed.body.files.length, 2);
    });

    await t.step("the host's connection profile sets the limits", async () => {
      const p = await admin.post("/api/connection-profiles", {
        url: "irc://127.0.0.1",
        max_message_length: 40,
        max_bulk_message_size: 5,
      });
      assertEquals(p.status, 200, JSON.stringify(p.body));
      await send("one\ntwo\nthree\nfour");
      // Four lines are within this profile; the engine sends them one by one.
      assertEquals(await received(), "one");
      const msg = "x".repeat(41);
      await send(msg);
      const url = await poll("the pasted URL", async () => {
        const line = await received();
        return line.startsWith("http") ? line : undefined;
      });
      assertEquals(await (await fetch(url)).text(), msg);
    });
  } finally {
    await bob.close();
    await server.close();
    await irc.close();
  }
});
