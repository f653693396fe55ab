/**
 * bouncer/networks.ts (soju.im/bouncer-networks): a network's attributes, the attribute list a
 * client sends, ADD/CHANGE/DELNETWORK through the connection service over a real store (with a
 * FAIL naming the attribute or network at fault), and the notifications of each change.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import {
  changeNetwork,
  networkAttributes,
  parseAttributes,
  watchNetworks,
} from "../../../bouncer/networks.ts";
import type { ConnectionJson } from "../../../protocol/resources.ts";
import { poll } from "../../support/poll.ts";
import { connectionService, withStore } from "./fakes.ts";

function json(
  url: string,
  state = "connected",
  info: Record<string, unknown> = {},
): ConnectionJson {
  return {
    connection_id: "irc-x",
    name: "Libera Chat",
    url,
    info,
    on_connect_commands: [],
    service_accounts: [],
    state,
    wanted_state: "connected",
  };
}

Deno.test("networks: a network's attributes, escaped as tag values", () => {
  assertEquals(
    networkAttributes(json("ircs://irc.libera.chat:6697?nick=jane&username=j&realname=Jane%20D")),
    "name=Libera\\sChat;state=connected;host=irc.libera.chat;port=6697;tls=1;nickname=jane;realname=Jane\\sD;username=j",
  );
  const plain = networkAttributes(
    json("irc://irc.example.org?nick=jane", "queued", { nick: "jane_" }),
  );
  assertEquals(
    plain,
    "name=Libera\\sChat;state=connecting;host=irc.example.org;port=6667;tls=0;nickname=jane_",
  );
  assert(networkAttributes(json("irc://h?nick=n", "disconnected")).includes("state=disconnected"));
});

Deno.test("networks: error says why a connection failed, not that the user stopped it", () => {
  const failed = json("irc://h?nick=n", "disconnected", { reason: '"No route to host; sorry"' });
  assert(networkAttributes(failed).endsWith(";error=No\\sroute\\sto\\shost\\:\\ssorry"));
  for (const reason of ["Disconnected by the user.", "Reconnecting with new settings."]) {
    const attrs = networkAttributes(json("irc://h?nick=n", "disconnected", { reason }));
    assert(!attrs.includes("error="), reason);
  }
  assert(!networkAttributes(json("irc://h?nick=n", "connected", { reason: 7 })).includes("error"));
});

Deno.test("networks: an attribute list, its escapes, a key alone, at most 32 pairs", () => {
  assertEquals(
    [...parseAttributes("name=a\\sb\\:c;host=h;;tls;pass=x\\\\y\\zq").entries()],
    [["name", "a b;c"], ["host", "h"], ["tls", ""], ["pass", "x\\yzq"]],
  );
  const many = Array.from({ length: 40 }, (_, i) => `k${i}=v`).join(";");
  assertEquals(parseAttributes(many).size, 32);
  assertEquals(parseAttributes("").size, 0);
});

async function setup(store: Parameters<typeof connectionService>[0]) {
  const user = await store.users.create("jane@example.com", "x", []);
  return { user, ...connectionService(store) };
}

Deno.test("networks: ADDNETWORK stores the network its attributes describe", async () => {
  await withStore(async (store) => {
    const { user, connections, fake } = await setup(store);
    const [answer] = await changeNetwork(
      { connections, store },
      user,
      "ADDNETWORK",
      ["name=Example;host=irc.example.org;port=6697;nickname=jane;username=jd;realname=Jane\\sD"],
    );
    const id = answer.split(" ")[2];
    assertEquals(answer, `BOUNCER ADDNETWORK ${id}`);
    const record = (await store.connections.get(user.id, id))!;
    assertEquals(record.name, "Example");
    const url = new URL(record.url);
    assertEquals([url.protocol, url.hostname, url.port], ["ircs:", "irc.example.org", "6697"]);
    assertEquals(Object.fromEntries(url.searchParams), {
      nick: "jane",
      realname: "Jane D",
      username: "jd",
    });
    assertEquals(fake.calls, [`created ${id}`]);
    const [insecure] = await changeNetwork({ connections, store }, user, "ADDNETWORK", [
      "host=irc.example.net;tls=0;nickname=jane",
    ]);
    const plain = (await store.connections.get(user.id, insecure.split(" ")[2]))!;
    assertEquals(new URL(plain.url).port, "6667", "plain IRC's port when none is given");
  });
});

Deno.test("networks: a refused change is the spec's FAIL, naming the attribute or the network", async () => {
  await withStore(async (store) => {
    const { user, connections } = await setup(store);
    const change = (sub: "ADDNETWORK" | "CHANGENETWORK" | "DELNETWORK", ...params: string[]) =>
      changeNetwork({ connections, store }, user, sub, params).then(([l]) => l.split(" :")[0]);
    const cases: [string, string][] = [
      ["host=h.example;colour=red", "UNKNOWN_ATTRIBUTE ADDNETWORK * colour"],
      ["host=h.example;state=connected", "READ_ONLY_ATTRIBUTE ADDNETWORK * state"],
      ["name=x", "NEED_ATTRIBUTE ADDNETWORK host"],
      ["host=h.example;port=66a", "INVALID_ATTRIBUTE ADDNETWORK * port"],
      ["host=h.example;port=99999", "INVALID_ATTRIBUTE ADDNETWORK * port"],
      ["host=h.example:7000", "INVALID_ATTRIBUTE ADDNETWORK * host"],
      ["host=a\\sb.example", "INVALID_ATTRIBUTE ADDNETWORK * host"],
    ];
    for (const [attrs, expected] of cases) {
      assertEquals(await change("ADDNETWORK", attrs), `FAIL BOUNCER ${expected}`, attrs);
    }
    assertEquals(
      await change("CHANGENETWORK", "irc-nope", "nickname=x"),
      "FAIL BOUNCER INVALID_NETID CHANGENETWORK irc-nope",
    );
    assertEquals(
      await change("DELNETWORK", "irc-nope"),
      "FAIL BOUNCER INVALID_NETID DELNETWORK irc-nope",
    );
    assertEquals(await store.connections.count(user.id), 0);
  });
});

Deno.test("networks: the connection service's refusals name the attribute the client sent", async () => {
  await withStore(async (store) => {
    const { user, connections } = await setup(store);
    const change = (sub: "ADDNETWORK" | "CHANGENETWORK", ...params: string[]) =>
      changeNetwork({ connections, store }, user, sub, params).then(([l]) => l.split(" :")[0]);
    // Refused by the service, which points at the API's `url`: the client never sent one.
    const added: [string, string][] = [
      ["host=127.0.0.1;nickname=jane", "host"], // a private address
      ["host=h.example;nickname=1bad", "nickname"],
      ["host=h.example;nickname=jane;username=a@b", "username"],
    ];
    for (const [attrs, attribute] of added) {
      assertEquals(
        await change("ADDNETWORK", attrs),
        `FAIL BOUNCER INVALID_ATTRIBUTE ADDNETWORK * ${attribute}`,
        attrs,
      );
    }
    const first = await connections.create(user, {
      url: "ircs://irc.example.org:6697?nick=jane",
    }, "/");
    const second = await connections.create(user, {
      url: "ircs://login:secret@irc.example.org:6697?nick=janet&sasl=plain",
    }, "/");
    const id = second.connection_id;
    assertEquals(
      await change("CHANGENETWORK", id, "nickname=jane"),
      `FAIL BOUNCER INVALID_ATTRIBUTE CHANGENETWORK ${id} nickname`,
      "the same server and nick as another network",
    );
    assertEquals(
      await change("CHANGENETWORK", id, "host=irc.example.net"),
      `FAIL BOUNCER INVALID_ATTRIBUTE CHANGENETWORK ${id} pass`,
      "a saved SASL password does not follow to another server: send it again",
    );
    assertEquals(
      await change("CHANGENETWORK", first.connection_id, "nickname=-x"),
      `FAIL BOUNCER INVALID_ATTRIBUTE CHANGENETWORK ${first.connection_id} nickname`,
    );
    assertEquals(
      await change("CHANGENETWORK", id, "host=irc.example.net;pass=again"),
      `BOUNCER CHANGENETWORK ${id}`,
    );
  });
});

Deno.test("networks: CHANGENETWORK keeps what its attributes do not name; DELNETWORK removes", async () => {
  await withStore(async (store) => {
    const { user, connections, fake } = await setup(store);
    const made = await connections.create(user, {
      url:
        "ircs://sasluser:secret@irc.example.org:6697?nick=jane&sasl=plain&tls_verify=0&realname=Jane",
    }, "/");
    const id = made.connection_id;
    const ok = await changeNetwork({ connections, store }, user, "CHANGENETWORK", [
      id,
      "nickname=janet;name=Renamed",
    ]);
    assertEquals(ok, [`BOUNCER CHANGENETWORK ${id}`]);
    const record = (await store.connections.get(user.id, id))!;
    assertEquals(record.name, "Renamed");
    const url = new URL(record.url);
    assertEquals(url.username, "sasluser");
    assertEquals(url.password, "secret", "the same server keeps its stored password");
    assertEquals(url.searchParams.get("nick"), "janet");
    assertEquals(url.searchParams.get("sasl"), "plain");
    assertEquals(url.searchParams.get("tls_verify"), "0");
    assertEquals(url.searchParams.get("realname"), "Jane");
    // A name alone changes no URL.
    await changeNetwork({ connections, store }, user, "CHANGENETWORK", [id, "name=Again"]);
    assertEquals((await store.connections.get(user.id, id))!.url, record.url);
    assertEquals(await changeNetwork({ connections, store }, user, "DELNETWORK", [id]), [
      `BOUNCER DELNETWORK ${id}`,
    ]);
    assertEquals(await store.connections.get(user.id, id), undefined);
    assert(fake.calls.includes(`drop ${id}`), fake.calls.join());
  });
});

Deno.test("networks: each change is told once to the clients that watch", async () => {
  await withStore(async (store) => {
    const { user, connections, bus } = await setup(store);
    const a = await connections.create(user, { url: "ircs://irc.example.org?nick=jane" }, "/");
    const b = await connections.create(user, { url: "ircs://irc.example.net?nick=jane" }, "/");
    const heard: string[] = [];
    let watching = true;
    const stop = watchNetworks({
      bus,
      store,
      connections,
      watchers: (uid) => uid === user.id && watching ? [{ write: (l) => heard.push(l) }] : [],
    });
    const event = (id: string) =>
      bus.publish(user.id, {
        event: "state",
        type: "connection",
        connection_id: id,
        state: "disconnected",
        info: {},
      });
    const lineOf = async (id: string) =>
      `BOUNCER NETWORK ${id} ${
        networkAttributes(await connections.json((await store.connections.get(user.id, id))!))
      }`;
    try {
      // A change comes as several events: one line.
      event(a.connection_id);
      event(a.connection_id);
      event(a.connection_id);
      await poll("a's line", () => heard.length === 1);
      assertEquals(heard, [await lineOf(a.connection_id)]);
      // a again, unchanged, then b renamed: only b's line is new. (a's flush runs first, by the
      // same steps as b's, so a repeated line would come before b's.)
      const bRow = (await store.connections.get(user.id, b.connection_id))!;
      await store.connections.update(bRow.id, { name: "Renamed" });
      event(a.connection_id);
      event(b.connection_id);
      await poll("b's line", () => heard.length >= 2);
      assertEquals(heard.slice(1), [await lineOf(b.connection_id)]);
      // A removed network is said as `*`.
      await connections.remove(user.id, a.connection_id);
      event(a.connection_id);
      await poll("the removal", () => heard.length >= 3);
      assertEquals(heard[2], `BOUNCER NETWORK ${a.connection_id} *`);
      watching = false;
      event(b.connection_id);
    } finally {
      stop();
    }
  });
});
