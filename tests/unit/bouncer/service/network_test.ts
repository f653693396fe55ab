/**
 * bouncer/service/network.ts: `network create|update|delete|status` through the connection
 * service (a fake IRC side), with what each wrong use is told, and `-network`'s lookup.
 */
import { assert, assertEquals } from "../../../support/assert.ts";
import { withStore } from "../fakes.ts";
import { service } from "./service.ts";

Deno.test("bouncerserv network create: the address, the flags, and every wrong use", async () => {
  await withStore(async (store) => {
    const { as, fake } = service(store);
    const jane = await store.users.create("jane@example.com", "x", []);
    const run = as(jane);
    const usage = (await run("help network create"))[0].split(":")[0];
    assertEquals(await run("network create -name x"), [
      "-addr is needed.",
      `Usage: ${usage} (type "help network create")`,
    ]);
    assertEquals(
      (await run("network create irc.example.org"))[0],
      "Give every value with its flag.",
    );
    // A wrong flag is told with the usage, as every other wrong use.
    const flagged: [string, string][] = [
      ["-colour red", "Unknown flag -colour."],
      ["-nick a -nick b", "The flag -nick is given twice."],
      ["-nick", "The flag -nick needs a value."],
    ];
    for (const [flags, error] of flagged) {
      assertEquals(await run(`network create -addr irc.example.org ${flags}`), [
        error,
        `Usage: ${usage} (type "help network create")`,
      ], flags);
    }
    assertEquals(await run("network create -addr x@[::zz]:99999"), [
      "-addr takes host[:port], ircs://host[:port] or irc://host[:port].",
    ]);
    assertEquals(await run("network create -addr irc.example.org -enabled maybe"), [
      "Give every value with its flag.",
      `Usage: ${usage} (type "help network create")`,
    ]);
    assertEquals(await store.connections.count(jane.id), 0);
    const made = await run(
      'network create -addr irc.example.org -name "Example net" -nick jane -username jd -realname "Jane D" -pass s3cret -enabled false',
    );
    const id = /\((irc-[\w-]+)\)/.exec(made[0])![1];
    assertEquals(made, [`Created network "Example net" (${id}).`]);
    const record = (await store.connections.get(jane.id, id))!;
    const url = new URL(record.url);
    assertEquals([url.protocol, url.host, url.password], ["ircs:", "irc.example.org", "s3cret"]);
    assertEquals(Object.fromEntries(url.searchParams), {
      nick: "jane",
      username: "jd",
      realname: "Jane D",
    });
    assertEquals(record.wantedState, "disconnected");
    assertEquals(fake.calls, [`created ${id}`]);
    const plain = await run("network create -addr irc://irc.example.net:6668 -nick jane");
    const plainId = /\((irc-[\w-]+)\)/.exec(plain[0])![1];
    assertEquals(
      (await store.connections.get(jane.id, plainId))!.url,
      "irc://irc.example.net:6668?nick=jane",
    );
    // The connection service's checks, as for the API: a private address.
    const refused = await run("network create -addr 10.1.2.3 -nick jane");
    assert(/10\.1\.2\.3/.test(refused[0]) && refused.length === 1, refused.join("\n"));
  });
});

Deno.test("bouncerserv network update: by id or name; what no flag names stays", async () => {
  await withStore(async (store) => {
    const { as, connections, fake } = service(store);
    const jane = await store.users.create("jane@example.com", "x", []);
    const a = await connections.create(jane, {
      url: "ircs://login:pw@irc.example.org?nick=jane&sasl=plain&tls_verify=0",
      name: "Libera",
      wanted_state: "disconnected",
    }, "/");
    const run = as(jane);
    assertEquals((await run(`network update ${a.connection_id}`))[0], "Say what to change.");
    assertEquals((await run("network update a b -nick x"))[0], "Give every value with its flag.");
    // The same server keeps its stored password (here SASL's) with a new nick.
    assertEquals(await run("network update LIBERA -nick janet"), [
      `Updated network "Libera" (${a.connection_id}).`,
    ]);
    let url = new URL((await store.connections.get(jane.id, a.connection_id))!.url);
    assertEquals([url.username, url.password, url.searchParams.get("nick")], [
      "login",
      "pw",
      "janet",
    ]);
    // Another server does not get it: the SASL password must be given again.
    assertEquals(await run("network update libera -addr irc.example.com:7000"), [
      "Enter the password again: a saved password is only sent to the server, port and TLS setting it was saved for.",
    ]);
    assertEquals(await run("network update libera -addr irc.example.com:7000 -pass pw2"), [
      `Updated network "Libera" (${a.connection_id}).`,
    ]);
    url = new URL((await store.connections.get(jane.id, a.connection_id))!.url);
    assertEquals([url.host, url.username, url.password], ["irc.example.com:7000", "login", "pw2"]);
    assertEquals(url.searchParams.get("sasl"), "plain");
    assertEquals(url.searchParams.get("tls_verify"), "0");
    // A server password (no SASL) stays with its server only.
    const srv = await connections.create(jane, {
      url: "ircs://:serverpw@irc.example.net?nick=jane",
      name: "Net",
      wanted_state: "disconnected",
    }, "/");
    assertEquals(
      (await run("network update net -addr irc.elsewhere.example"))[0],
      `Updated network "Net" (${srv.connection_id}).`,
    );
    url = new URL((await store.connections.get(jane.id, srv.connection_id))!.url);
    assertEquals([url.host, url.password], ["irc.elsewhere.example", ""]);
    await connections.remove(jane.id, srv.connection_id);
    // With one network, -network's default is that one; a connect that fails is said after the save.
    fake.failConnect = true;
    assertEquals(await run("network update -enabled true -name Renamed"), [
      "Saved, but connecting failed: Connection refused",
    ]);
    const stored = (await store.connections.get(jane.id, a.connection_id))!;
    assertEquals([stored.name, stored.wantedState], ["Renamed", "connected"]);
    fake.failConnect = false;
    // With two, one must be named (unless the client is bound to one).
    await connections.create(jane, {
      url: "ircs://irc.example.net?nick=jane",
      wanted_state: "disconnected",
    }, "/");
    assertEquals(
      (await run("network update -nick x"))[0],
      "Name the network with -network <name>.",
    );
    assertEquals(await as(jane, a.connection_id)("network update -nick y"), [
      `Updated network "Renamed" (${a.connection_id}).`,
    ]);
  });
});

Deno.test("bouncerserv network delete and status", async () => {
  await withStore(async (store) => {
    const { as, connections, fake } = service(store);
    const jane = await store.users.create("jane@example.com", "x", []);
    const run = as(jane);
    assertEquals(await run("network status"), [
      'You have no networks. Type "help network create".',
    ]);
    const a = await connections.create(jane, {
      url: "ircs://irc.example.org:6697?nick=jane",
      name: "Example",
      wanted_state: "disconnected",
    }, "/");
    const b = await connections.create(jane, {
      url: "irc://irc.example.net?nick=jd",
      name: "Other",
      wanted_state: "disconnected",
    }, "/");
    assertEquals(await run("network status"), [
      `${a.connection_id} (Example): disconnected as jane on irc.example.org:6697, TLS`,
      `${b.connection_id} (Other): disconnected as jd on irc.example.net:6667`,
    ]);
    assertEquals((await run("network delete a b"))[0], "Name the network to delete.");
    assertEquals(await run("network delete other"), [
      `Deleted network "Other" (${b.connection_id}).`,
    ]);
    assertEquals(await store.connections.get(jane.id, b.connection_id), undefined);
    assert(fake.calls.includes(`drop ${b.connection_id}`));
    // Another user's network is not found by its id.
    const joe = await store.users.create("joe@example.com", "x", []);
    assertEquals(await as(joe)(`network delete ${a.connection_id}`), [
      `No network "${a.connection_id}". Type "network status" to list yours.`,
    ]);
  });
});
