/**
 * An attached IRC client hears when its network goes down and comes back (a NOTICE from Parley in
 * the web client's words), and a client on another network hears nothing of it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { poll } from "../support/poll.ts";

Deno.test("bouncer: a network down and back is told to its clients", async () => {
  const s = await setupBouncer();
  try {
    const other = await s.api.post("/api/connections", {
      url: `irc://127.0.0.1:${s.ngircd.port}?nick=carol`,
      name: "other",
    });
    const c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}`, PASSWORD, [], "mine");
    const elsewhere = await BouncerClient.attach(
      s.port,
      `${EMAIL}/${other.body.connection_id}`,
      PASSWORD,
      [],
      "elsewhere",
    );
    const from = c.lines.length;
    const told = (text: RegExp) =>
      c.waitFor(
        (l) => l.command === "NOTICE" && l.prefix === "parley" && text.test(l.params[1] ?? ""),
        from,
      );
    assertEquals(
      (await s.api.post(`/api/connection/${s.cid}`, { wanted_state: "disconnected" }))
        .status,
      200,
    );
    const down = await told(/disconnect/i);
    assertEquals(down.params[0], "alice");
    await s.api.post(`/api/connection/${s.cid}`, { wanted_state: "connected" });
    await told(/^Connected to /);
    await poll(
      "connected",
      async () =>
        (await s.api.get("/api/connections")).body.connections.every((x: { state: string }) =>
          x.state === "connected"
        ),
    );
    await elsewhere.send("PING :sync");
    await elsewhere.waitFor((l) => l.command === "PONG");
    assert(
      !elsewhere.lines.some((l) => l.command === "NOTICE" && l.prefix === "parley"),
      "the other network's client heard nothing",
    );
    c.close();
    elsewhere.close();
  } finally {
    await s.close();
  }
});
