/**
 * Two Parley nodes on one PostgreSQL and one ngircd, each with the IRC listener: a client that
 * reaches the node that does not run the user's connection is handed over to the node that does.
 * It gets the burst, the live lines, and what it says reaches IRC; QUIT detaches it there. When
 * the owner is killed, the session ends, and the client attaching again is served by the node
 * that took the user over. A channel detached or reattached through another node's API reaches
 * the clients of the node that runs the connection. An away set before registering
 * (draft/pre-away) goes with the hand-over.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { BouncerClient, type Received } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { freePort } from "../support/ports.ts";
import { poll } from "../support/poll.ts";
import { startPostgres } from "../support/postgres.ts";
import { diagnose, startServer, type TestServer } from "../support/server.ts";

const EMAIL = "owner@example.org";
const PASSWORD = "correct horse battery";

/**
 * One PostgreSQL and one ngircd for two nodes, the nodes' shared settings, and `waited`: a step's
 * timeout says which step, with both nodes' and the server's logs.
 */
async function cluster() {
  const pg = await startPostgres();
  const irc = await startIrcServer();
  const env = {
    PARLEY_DATABASE_URL: await pg.database(),
    PARLEY_SECRET: "one secret for both nodes",
    PARLEY_TEST_CLUSTER_SCAN_MS: "500",
    PARLEY_TEST_FAST_IRC: "1",
  };
  const nodes: TestServer[] = [];
  const why = () =>
    nodes.map((n, i) => `node ${"ab"[i]}:\n${diagnose(n.output(), irc.output())}`).join("\n");
  const waited = <T>(what: string, step: Promise<T>): Promise<T> =>
    step.catch((err) => {
      throw new Error(`waiting for ${what}: ${err.message}\n${why()}`);
    });
  return {
    irc,
    env,
    nodes,
    why,
    waited,
    async close() {
      for (const n of nodes) await n.close();
      await irc.close();
      await pg.close();
    },
  };
}

Deno.test("bouncer on two nodes: a client on the other node is served by the owner", async () => {
  const two = await cluster();
  const { irc, env, nodes, why, waited } = two;
  let bob: RawIrcClient | undefined;
  let c: BouncerClient | undefined;
  const line = (test: (l: Received) => boolean) => c!.waitFor(test);
  try {
    const a = await startServer({
      env: { ...env, PARLEY_IRC_LISTEN: `irc://127.0.0.1:${freePort()}` },
    });
    nodes.push(a);
    const onA = new ApiClient(a.url);
    await onA.register(EMAIL, PASSWORD);
    const made = await onA.post("/api/connections", {
      url: `${irc.url}?nick=owner`,
      conversation_id: "#nodes",
    });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    bob = await RawIrcClient.connect(irc.port, "bob");
    await bob.join("#nodes");
    await waited("owner in #nodes (node a)", bob.waitForMember("#nodes", "owner"));
    assert(/cluster: running user uid=1/.test(a.output()), why());
    const portB = freePort();
    const b = await startServer({ env: { ...env, PARLEY_IRC_LISTEN: `irc://127.0.0.1:${portB}` } });
    nodes.push(b);
    assert(!/cluster: running user/.test(b.output()), "node b runs nobody");
    // The daemon answers HTTP a moment before its IRC listener is open.
    await waited(
      "node b's listener",
      poll("node b's listener is open", () => b.output().includes("irc listening")),
    );

    // With an away message set before registering (draft/pre-away): node b hands it over.
    c = await waited(
      "the first attach to node b",
      BouncerClient.register(
        await BouncerClient.connect(portB, "far"),
        `${EMAIL}/irc-localhost@far`,
        PASSWORD,
        ["server-time", "message-tags", "echo-message", "batch", "draft/pre-away"],
        ["AWAY :away on node b"],
      ),
    );
    // The burst comes from node a, which is in the channel.
    const join = await waited(
      "the burst's JOIN",
      line((l) => l.command === "JOIN" && l.params[0] === "#nodes"),
    );
    assert(join.prefix.startsWith("owner"), join.raw);
    await waited("the burst's 366", line((l) => l.command === "366" && l.params[1] === "#nodes"));

    await bob.say("#nodes", "live to node b");
    const live = await waited(
      "bob's live line",
      line((l) => l.command === "PRIVMSG" && l.params[1] === "live to node b"),
    );
    assert(live.tags.get("msgid"), live.raw);

    // The away set before registering reached the server through node a.
    const awayText = async () => {
      const from = bob!.lines.length;
      await bob!.send("WHOIS owner");
      await bob!.waitFor((l) => l.command === "318" && bob!.lines.indexOf(l) >= from);
      return bob!.lines.slice(from).find((l) => l.command === "301")?.params.at(-1);
    };
    await waited(
      "the early away on the server",
      poll("owner away", async () => (await awayText()) === "away on node b"),
    );
    await c.send("AWAY");
    await waited("the 305 of the return", line((l) => l.command === "305"));

    await c.send("PRIVMSG #nodes :said on node b");
    const heard = await waited(
      "the client's line at bob",
      bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "said on node b"),
    );
    assertEquals(heard.prefix?.split("!")[0], "owner");
    await waited(
      "the client's line echoed",
      line((l) => l.command === "PRIVMSG" && l.params[1] === "said on node b"),
    );

    await c.send("QUIT :bye");
    await waited("the end of the session on QUIT", c.waitClosed());
    assert(/bouncer client handed over/.test(b.output()), why());

    // Node a is killed (no close is sent): node b ends the handed-over session once it sees a
    // gone, and the client, attaching again, is served by node b, which took the user over.
    c = await waited(
      "the second attach to node b",
      BouncerClient.attach(portB, `${EMAIL}/irc-localhost@far`, PASSWORD, []),
    );
    await waited(
      "the second burst's 366",
      line((l) => l.command === "366" && l.params[1] === "#nodes"),
    );
    await a.kill();
    await waited("the end of the session on node a's death", c.waitClosed(60_000));
    await waited("owner in #nodes (node b)", bob.waitForMember("#nodes", "owner", 60_000));
    c = await waited(
      "the third attach to node b",
      BouncerClient.attach(portB, `${EMAIL}/irc-localhost@far`, PASSWORD, []),
    );
    await waited(
      "the third burst's 366",
      line((l) => l.command === "366" && l.params[1] === "#nodes"),
    );
    await bob.say("#nodes", "served by node b");
    await waited(
      "bob's line served by node b",
      line((l) => l.command === "PRIVMSG" && l.params[1] === "served by node b"),
    );
  } finally {
    c?.close();
    await bob?.close();
    await two.close();
  }
});

Deno.test("bouncer on two nodes: a channel detached on the other node leaves the owner's clients", async () => {
  const two = await cluster();
  const { irc, env, nodes, why, waited } = two;
  let bob: RawIrcClient | undefined;
  let c: BouncerClient | undefined;
  try {
    const portA = freePort();
    const a = await startServer({ env: { ...env, PARLEY_IRC_LISTEN: `irc://127.0.0.1:${portA}` } });
    nodes.push(a);
    const onA = new ApiClient(a.url);
    await onA.register(EMAIL, PASSWORD);
    const made = await onA.post("/api/connections", {
      url: `${irc.url}?nick=owner`,
      conversation_id: "#nodes",
    });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    const cid = made.body.connection_id as string;
    bob = await RawIrcClient.connect(irc.port, "bob");
    await bob.join("#nodes");
    await waited("owner in #nodes (node a)", bob.waitForMember("#nodes", "owner"));
    assert(/cluster: running user uid=1/.test(a.output()), why());
    await waited(
      "node a's listener",
      poll("node a's listener is open", () => a.output().includes("irc listening")),
    );
    c = await waited(
      "the attach to node a",
      BouncerClient.attach(portA, `${EMAIL}/${cid}@near`, PASSWORD, ["server-time"]),
    );
    await waited("the burst's 366", c.waitFor((l) => l.command === "366"));

    const b = await startServer({ env });
    nodes.push(b);
    assert(!/cluster: running user/.test(b.output()), "node b runs nobody");
    const onB = new ApiClient(b.url);
    await onB.login(EMAIL, PASSWORD);
    const detached = `/api/connection/${cid}/conversation/%23nodes/detached`;

    let from = c.lines.length;
    const off = await onB.post(detached, { detached: true });
    assertEquals(off.body, { detached: true });
    const part = await waited(
      "the PART on node a's client",
      c.waitFor((l) => l.command === "PART" && l.params[0] === "#nodes", from),
    );
    assert(part.prefix.startsWith("owner"), part.raw);

    from = c.lines.length;
    const on = await onB.post(detached, { detached: false });
    assertEquals(on.body, { detached: false });
    const join = await waited(
      "the JOIN burst on node a's client",
      c.waitFor((l) => l.command === "JOIN" && l.params[0] === "#nodes", from),
    );
    assert(join.prefix.startsWith("owner"), join.raw);
    await waited(
      "the JOIN burst's 366",
      c.waitFor((l) => l.command === "366" && l.params[1] === "#nodes", from),
    );
  } finally {
    c?.close();
    await bob?.close();
    await two.close();
  }
});
