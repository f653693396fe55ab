// deno-lint-ignore-file no-explicit-any -- API answers are read field by field
/**
 * The commands Convos's client offers that its users type, against a real ngircd (through a proxy
 * that keeps what Parley writes): `/j`, `/shrug`, `/ison`, `/oper` and the services' `/ns`, `/cs`...
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { lineProxy } from "../support/line_proxy.ts";
import { poll } from "../support/poll.ts";
import { startServer } from "../support/server.ts";

Deno.test("Convos's commands: /j, /shrug, /ison, /oper, /ns and the other services'", async (t) => {
  const irc = await startIrcServer();
  const proxy = lineProxy(irc.port);
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const api = new ApiClient(server.url);
  await api.register("alice@example.com");
  const bob = await RawIrcClient.connect(irc.port, "bob");
  try {
    const made = await api.post("/api/connections", {
      url: `irc://127.0.0.1:${proxy.port}?nick=alice`,
      conversation_id: "#convos",
    });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    const base = "/api/connection/irc-localhost";
    const history = async (where: string) =>
      ((await api.get(`${base}/conversation/${where}/messages`)).body.messages ?? []) as any[];
    await poll("alice in #convos", async () => (await history("%23convos")).length > 0);
    const send = async (message: string, where = "%23convos") => {
      const res = await api.post(`${base}/conversation/${where}/messages`, { message });
      assertEquals(res.status, 200, `${message}: ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const wrote = (prefix: string) => proxy.sent.filter((l) => l.startsWith(prefix));

    await t.step("/j joins, as /join does", async () => {
      assertEquals((await send("/j #jumped")).conversation_id, "#jumped");
      await poll("JOIN written", () => wrote("JOIN #jumped").length === 1);
    });

    await t.step("/shrug says the text with a shrug, and alone the shrug", async () => {
      await bob.join("#convos");
      await send("/shrug no idea");
      await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "no idea ¯\\_(ツ)_/¯");
      await send("/shrug");
      await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "¯\\_(ツ)_/¯");
      const said = (await history("%23convos")).map((m) => m.message);
      assert(said.includes("no idea ¯\\_(ツ)_/¯"), said.join("\n"));
    });

    await t.step("/ison says whether someone is on IRC", async () => {
      const ison = async (nick: string) => {
        const { nick: asked, online } = await send(`/ison ${nick}`);
        return { asked, online };
      };
      assertEquals(await ison("bob"), { asked: "bob", online: true });
      assertEquals(await ison("nobody"), { asked: "nobody", online: false });
      const bad = await api.post(`${base}/conversation/%23convos/messages`, { message: "/ison" });
      assertEquals(bad.status, 400, JSON.stringify(bad.body));
    });

    await t.step("/ctcp asks someone's client and answers with what it said", async () => {
      // bob answers as an IRC client does: a NOTICE with the request's type.
      const answered = (type: string, text: (asked: string) => string) =>
        bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1].startsWith(`\x01${type}`)).then(
          (l) => bob.send(`NOTICE alice :\x01${type} ${text(l.params[1].slice(1, -1))}\x01`),
        );
      const [version] = await Promise.all([
        send("/ctcp bob version"),
        answered("VERSION", () => "rawbot 1.0"),
      ]);
      assertEquals(version.ctcp, { nick: "bob", type: "VERSION", reply: "rawbot 1.0" });
      // A PING's text comes back: the round trip is measured from it.
      const [ping] = await Promise.all([
        send("/ctcp bob ping"),
        answered("PING", (asked) => asked.slice(5)),
      ]);
      assertEquals(Object.keys(ping.ctcp), ["nick", "type", "reply", "seconds"]);
      assert(ping.ctcp.seconds >= 0 && ping.ctcp.seconds < 10, JSON.stringify(ping.ctcp));
      // Nobody answers TIME: after the wait, the answer says so.
      assertEquals((await send("/ctcp bob time")).ctcp, {
        nick: "bob",
        type: "TIME",
        error: "timeout",
      });
      assertEquals(wrote("PRIVMSG bob"), [
        "PRIVMSG bob \x01VERSION\x01",
        `PRIVMSG bob :\x01PING ${ping.ctcp.reply}\x01`,
        "PRIVMSG bob \x01TIME\x01",
      ]);
      for (
        const bad of [
          "/ctcp",
          "/ctcp bob",
          "/ctcp #convos version",
          "/ctcp bob act!on",
          `/ctcp bob ping ${"x".repeat(301)}`,
        ]
      ) {
        const res = await api.post(`${base}/conversation/%23convos/messages`, { message: bad });
        assertEquals(res.status, 400, `${bad}: ${JSON.stringify(res.body)}`);
        assertEquals(res.body.errors[0].path, "/body/message");
      }
      const kept = (await history("%23convos")).map((m) => String(m.message)).join("\n");
      assert(!kept.includes("rawbot"), "the answers are kept in no conversation");
    });

    await t.step(
      "/ns and /cs go to the server as its services' commands, kept nowhere",
      async () => {
        await send("/ns identify alice s3cret", "");
        await send("/cs op #convos", "");
        await poll("written", () => wrote("NICKSERV").length + wrote("CHANSERV").length === 2);
        assertEquals(wrote("NICKSERV"), ["NICKSERV identify alice s3cret"]);
        assertEquals(wrote("CHANSERV"), ["CHANSERV op #convos"]);
        assertEquals(wrote("PRIVMSG NickServ"), [], "no message to a nick that could be anyone");
        const kept = (await api.get("/api/search?match=s3cret")).body.messages;
        assertEquals(kept, [], "the password is in no conversation");
      },
    );

    await t.step("/oper logs in; refused, the connection stays as it was", async () => {
      await send("/oper alice wrong", "");
      await poll("OPER written", () => wrote("OPER alice wrong").length === 1);
      const said = async () => (await history("")).map((m) => String(m.message));
      await poll("the refusal shown", async () => (await said()).some((m) => /password/i.test(m)));
      const conn = (await api.get("/api/connections")).body.connections[0];
      assertEquals(conn.state, "connected");
    });
  } finally {
    await bob.close();
    await server.close();
    await proxy.close();
    await irc.close();
  }
});
