/**
 * soju.im/bouncer-networks: a client logged in without a network lists the user's connections,
 * adds, changes and deletes them (through the connection service, so the API sees the same),
 * hears of changes with -notify, and another client binds a network before registering.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { poll } from "../support/poll.ts";

const NETWORK_CAPS = ["soju.im/bouncer-networks", "soju.im/bouncer-networks-notify", "batch"];

Deno.test("bouncer: soju.im/bouncer-networks", async (t) => {
  const s = await setupBouncer();
  try {
    const c = await BouncerClient.attach(s.port, EMAIL, PASSWORD, NETWORK_CAPS, "manager");

    await t.step("bound to no network: no channels, no BOUNCER_NETID, no talking", async () => {
      await c.waitFor((l) => l.command === "422");
      assert(!c.lines.some((l) => l.command === "JOIN"));
      const isupport = c.lines.filter((l) => l.command === "005").flatMap((l) => l.params);
      assert(!isupport.some((t) => t.startsWith("BOUNCER_NETID")), isupport.join(" "));
      await c.send("PRIVMSG #x :hello");
      await c.waitFor((l) => l.command === "400" && l.params[1] === "PRIVMSG");
    });

    await t.step("LISTNETWORKS: one batch of the user's connections", async () => {
      await c.send("BOUNCER LISTNETWORKS");
      const net = await c.waitFor((l) => l.command === "BOUNCER" && l.params[0] === "NETWORK");
      assertEquals(net.params[1], s.cid);
      for (const attr of ["state=connected", "host=127.0.0.1", `port=${s.ngircd.port}`, "tls=0"]) {
        assert(net.params[2].split(";").includes(attr), net.params[2]);
      }
      assert(net.tags.get("batch"), "inside the batch");
      await c.waitFor((l) => l.command === "BATCH" && l.params[0].startsWith("-"));
    });

    let added = "";
    await t.step("ADDNETWORK makes a connection, as the API would; -notify tells", async () => {
      const bad = c.lines.length;
      await c.send("BOUNCER ADDNETWORK port=abc");
      const fail = await c.waitFor((l) => l.command === "FAIL", bad);
      assertEquals(fail.params.slice(0, 3), ["BOUNCER", "INVALID_ATTRIBUTE", "ADDNETWORK"]);
      await c.send(
        `BOUNCER ADDNETWORK host=127.0.0.1;port=${s.ngircd.port};tls=0;nickname=carol;name=second`,
      );
      const ok = await c.waitFor((l) => l.command === "BOUNCER" && l.params[0] === "ADDNETWORK");
      added = ok.params[1];
      const listed = await s.api.get("/api/connections");
      const made = listed.body.connections.find((x: { connection_id: string }) =>
        x.connection_id === added
      );
      assertEquals(made?.name, "second");
      await c.waitFor((l) =>
        l.command === "BOUNCER" && l.params[0] === "NETWORK" && l.params[1] === added &&
        l.params[2].includes("state=connected")
      );
    });

    await t.step("BIND before registering attaches another client to that network", async () => {
      const d = await BouncerClient.connect(s.port, "bound");
      await d.send("CAP LS 302");
      await d.send("CAP REQ :soju.im/bouncer-networks");
      await d.send(`PASS :${PASSWORD}`);
      await d.send(`BOUNCER BIND ${added}`);
      await d.send("NICK x");
      await d.send(`USER ${EMAIL} 0 * :x`);
      await d.send("CAP END");
      assertEquals((await d.waitFor((l) => l.command === "001")).params[0], "carol");
      await d.send(`BOUNCER BIND ${s.cid}`);
      const late = await d.waitFor((l) => l.command === "FAIL");
      assertEquals(late.params[1], "REGISTRATION_IS_COMPLETED");
      d.close();
    });

    await t.step("CHANGENETWORK renames; DELNETWORK removes, and -notify says so", async () => {
      await c.send(`BOUNCER CHANGENETWORK ${added} name=renamed`);
      await c.waitFor((l) => l.command === "BOUNCER" && l.params[0] === "CHANGENETWORK");
      await poll("renamed in the API", async () => {
        const r = await s.api.get("/api/connections");
        return r.body.connections.some((x: { name: string }) => x.name === "renamed");
      });
      await c.send(`BOUNCER DELNETWORK ${added}`);
      await c.waitFor((l) => l.command === "BOUNCER" && l.params[0] === "DELNETWORK");
      await c.waitFor((l) =>
        l.command === "BOUNCER" && l.params[0] === "NETWORK" && l.params[1] === added &&
        l.params[2] === "*"
      );
      const r = await s.api.get("/api/connections");
      assertEquals(r.body.connections.length, 1);
      const from = c.lines.length;
      await c.send("BOUNCER DELNETWORK irc-nope");
      const fail = await c.waitFor((l) => l.command === "FAIL", from);
      assertEquals(fail.params[1], "INVALID_NETID");
    });

    await t.step("without the capability, no network named: refused", async () => {
      const e = await BouncerClient.connect(s.port, "plain");
      await e.send(`PASS :${PASSWORD}`);
      await e.send("NICK x");
      await e.send(`USER ${EMAIL} 0 * :x`);
      await e.waitFor((l) => l.command === "464");
      await e.waitClosed();
    });
    c.close();
  } finally {
    await s.close();
  }
});

Deno.test("bouncer: one BOUNCER NETWORK line per change, no error for a restart, a new nick told", async () => {
  const s = await setupBouncer();
  try {
    const c = await BouncerClient.attach(s.port, EMAIL, PASSWORD, NETWORK_CAPS, "manager");
    await c.waitFor((l) => l.command === "422");
    const from = c.lines.length;
    // A new nick restarts the connection: stopped, the server's ERROR, connecting, connected.
    await c.send(`BOUNCER CHANGENETWORK ${s.cid} nickname=alice2`);
    await c.waitFor((l) =>
      l.command === "BOUNCER" && l.params[0] === "NETWORK" &&
      /state=connected;.*nickname=alice2/.test(l.params[2] ?? ""), from);
    const told = c.lines.slice(from).filter((l) => l.params[0] === "NETWORK");
    const states = told.map((l) => /state=(\w+)/.exec(l.params[2])?.[1]);
    const said = told.map((l) => l.raw).join("\n");
    // Connecting then connected, or only connected when the restart was quicker than the gathering.
    assert(["connecting,connected", "connected"].includes(states.join()), said);
    assert(!told.some((l) => l.params[2].includes("error=")), told.map((l) => l.raw).join("\n"));

    // A nick changed on IRC leaves the state as it was: the line tells the new nickname.
    const bound = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}`, PASSWORD, [], "bound");
    await bound.waitFor((l) => l.command === "001");
    const before = c.lines.length;
    await bound.send("NICK alice3");
    const renamed = await c.waitFor(
      (l) => l.command === "BOUNCER" && l.params[0] === "NETWORK" && l.params[1] === s.cid,
      before,
    );
    assert(/state=connected;.*nickname=alice3/.test(renamed.params[2]), renamed.raw);
    bound.close();
    c.close();
  } finally {
    await s.close();
  }
});
