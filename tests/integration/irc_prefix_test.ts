/**
 * The server's PREFIX (ISUPPORT) reaches the web client in the connection's `info.prefix`, so
 * member lists rank and sign members as that server does, not by a guessed list.
 */
import { assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { EventSocket } from "../support/events.ts";
import { type HostileClient, startHostileIrc } from "../support/hostile_irc.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { startServer } from "../support/server.ts";
import { prefixString } from "../../irc/chat/inbound/server.ts";

const FAST = { PARLEY_TEST_FAST_IRC: "1" };

async function infoPrefix(api: ApiClient, cid: string): Promise<unknown> {
  const res = await api.get("/api/connections");
  return res.body?.connections?.find((c: { connection_id: string }) => c.connection_id === cid)
    ?.info?.prefix;
}

Deno.test("irc: the server's PREFIX is the connection's info.prefix, live and listed; info alone is no new state", async (t) => {
  const ngircd = await startIrcServer();
  const hostile = startHostileIrc();
  const server = await startServer({ env: FAST });
  try {
    const api = new ApiClient(server.url);
    await api.register("admin@example.com");
    const ws = await EventSocket.open(api);
    let other: HostileClient | undefined;

    await t.step("ngircd announces (qaohv)~&@%+", async () => {
      await api.post("/api/connections", { url: `irc://127.0.0.1:${ngircd.port}?nick=alice` });
      await poll(
        "the prefix",
        async () => await infoPrefix(api, "irc-localhost") === "(qaohv)~&@%+",
      );
    });

    await t.step("a server with its own prefixes: an info event carries them", async () => {
      await api.post("/api/connections", { url: `${hostile.url}?nick=bob`, name: "other" });
      const client = other = await hostile.registered();
      await client.send(`:irc.hostile.test 005 ${client.nick} PREFIX=(Yov)!@+ :are supported`);
      const ev = await ws.waitFor((e) =>
        e.event === "state" && e.type === "info" && e.prefix === "(Yov)!@+"
      );
      assertEquals(ev.connection_id, "irc-localhost-2");
      assertEquals(await infoPrefix(api, "irc-localhost-2"), "(Yov)!@+");
    });

    await t.step("new info in an unchanged state is no second connection state", async () => {
      // The web client writes a line per `connection` event: a network name told after the
      // connect wrote "Connection state: connected" twice.
      const client = other!;
      await client.send(`:irc.hostile.test 005 ${client.nick} NETWORK=Hostile :are supported`);
      await ws.waitFor((e) =>
        e.event === "state" && e.type === "info" && e.connection_id === "irc-localhost-2" &&
        e.network === "Hostile"
      );
      const states = ws.events.filter((e) =>
        e.event === "state" && e.type === "connection" && e.connection_id === "irc-localhost-2"
      ).map((e) => e.state);
      assertEquals(states.filter((s) => s === "connected").length, 1, states.join(" "));
    });
    await ws.close();
  } finally {
    await server.close();
    await hostile.close();
    await ngircd.close();
  }
});

Deno.test("irc: a parsed PREFIX back in ISUPPORT's form, odd ones refused", () => {
  assertEquals(prefixString([{ mode: "o", symbol: "@" }, { mode: "v", symbol: "+" }]), "(ov)@+");
  assertEquals(prefixString([]), "()");
  assertEquals(prefixString([{ mode: "o", symbol: " " }]), undefined);
  assertEquals(prefixString([{ mode: "oo", symbol: "@" }]), undefined);
  assertEquals(prefixString("(ov)@+"), undefined);
  assertEquals(prefixString(Array(17).fill({ mode: "o", symbol: "@" })), undefined);
});
