/**
 * updateConnection and a connection's stored password: it stays while host, port and TLS do (a
 * client is never shown it, so it cannot send it back), and is dropped, unless sent again, when
 * any of them changes. The stored record is read from the store: the API never shows it.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startApp } from "../support/app.ts";

const EMAIL = "owner@example.com";

Deno.test("updateConnection: a stored password follows only to the same server", async (t) => {
  const a = await startApp({ PARLEY_IRC_ALLOW_PRIVATE: "1" });
  const api = a.client();
  try {
    await api.register(EMAIL);
    const userId = (await a.deps.store.users.byEmail(EMAIL))!.id;
    const stored = async (cid: string) => (await a.deps.store.connections.get(userId, cid))!.url;
    /** A fresh connection to `url`, held down (nothing here talks to IRC). */
    const make = async (url: string) => {
      const res = await api.post("/api/connections", { url, wanted_state: "disconnected" });
      assertEquals(res.status, 200, JSON.stringify(res.body));
      return res.body.connection_id as string;
    };
    const update = (cid: string, url: string) => api.post(`/api/connection/${cid}`, { url });

    await t.step("the same server without a password keeps the stored one", async () => {
      const cid = await make("irc://jo:s3cret@irc.example.com:6667?nick=jo");
      // As the API shows it, with the nick changed.
      const res = await update(cid, "irc://jo:@irc.example.com:6667?nick=jo2");
      assertEquals(res.status, 200, JSON.stringify(res.body));
      assertEquals(res.body.url, "irc://jo:@irc.example.com:6667?nick=jo2");
      assertEquals(await stored(cid), "irc://jo:s3cret@irc.example.com:6667?nick=jo2");
      // A password sent replaces it.
      await update(cid, "irc://jo:n3w@irc.example.com:6667?nick=jo2");
      assertEquals(await stored(cid), "irc://jo:n3w@irc.example.com:6667?nick=jo2");
    });

    await t.step("another host, port or TLS setting drops it", async () => {
      const moves = [
        "irc://jo:@irc.elsewhere.example:6667?nick=jo",
        "irc://jo:@irc.example.com:7000?nick=jo",
        "irc://jo:@irc.example.com:6667?nick=jo&tls=1",
      ];
      for (const [n, url] of moves.entries()) {
        const cid = await make(`irc://jo:s3cret@irc.example.com:6667?nick=n${n}`);
        const res = await update(cid, url.replace("nick=jo", `nick=n${n}`));
        assertEquals(res.status, 200, JSON.stringify(res.body));
        assertEquals(new URL(await stored(cid)).password, "", url);
      }
      // TLS turned off on the same port.
      const cid = await make("ircs://:s3cret@irc.example.com:6697?nick=tls");
      await update(cid, "irc://irc.example.com:6697?nick=tls&tls=0");
      assertEquals(await stored(cid), "irc://irc.example.com:6697?nick=tls&tls=0");
    });

    await t.step("a password sent with the move goes with it", async () => {
      const cid = await make("irc://jo:s3cret@irc.example.com:6667?nick=sent");
      await update(cid, "irc://jo:other@irc.elsewhere.example:6667?nick=sent");
      assertEquals(await stored(cid), "irc://jo:other@irc.elsewhere.example:6667?nick=sent");
    });

    await t.step("SASL PLAIN: kept on the same server, asked for again on another", async () => {
      const cid = await make("irc://acct:pw@irc.example.com:6667?nick=sasl&sasl=plain");
      const same = await update(cid, "irc://acct:@irc.example.com:6667?nick=sasl2&sasl=plain");
      assertEquals(same.status, 200, JSON.stringify(same.body));
      assertEquals(await stored(cid), "irc://acct:pw@irc.example.com:6667?nick=sasl2&sasl=plain");
      const moved = await update(cid, "irc://acct:@irc.elsewhere.example?nick=sasl2&sasl=plain");
      assertEquals(moved.status, 400, JSON.stringify(moved.body));
      assertEquals(moved.body.errors[0].path, "/body/url");
      assertStringIncludes(moved.body.errors[0].message, "Enter the password again");
      assertEquals(await stored(cid), "irc://acct:pw@irc.example.com:6667?nick=sasl2&sasl=plain");
    });

    await t.step("forced: the default connection's password stays with its TLS", async () => {
      await a.deps.store.settings.set({
        default_connection: "irc://:forcedpw@irc.forced.example:6697?tls=1",
        forced_connection: true,
      });
      const cid = await make("irc://irc.forced.example:6697?tls=1&nick=f");
      await update(cid, "irc://irc.forced.example:6697?tls=1&nick=f2");
      assertEquals(await stored(cid), "irc://:forcedpw@irc.forced.example:6697?tls=1&nick=f2");
      await update(cid, "irc://irc.forced.example:6697?tls=0&nick=f2");
      assertEquals(await stored(cid), "irc://irc.forced.example:6697?tls=0&nick=f2");
    });
  } finally {
    await a.close();
  }
});
