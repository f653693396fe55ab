/**
 * A client's `MODE #chan` about a joined channel is answered from the modes the server last said
 * (Parley asks after each join and follows every change), so a client's sync of many channels
 * does not wait for the network's flood control. Against a real ngircd, with the connection's
 * flood control closed where it matters: an answer that came then was Parley's.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { poll } from "../support/poll.ts";
import type { IrcManager } from "../../irc/manager.ts";

Deno.test("bouncer: MODE #chan is answered from the channel's known modes", async (t) => {
  const s = await setupBouncer();
  const user = `${EMAIL}/${s.cid}`;
  const a = await BouncerClient.attach(s.port, `${user}@a`, PASSWORD, [
    "labeled-response",
    "batch",
  ], "a");
  const record = (await s.app.deps.store.connections.get(1, s.cid))!;
  const conn = (s.app.deps.irc as IrcManager).live(record.id)!;
  const modesOf = () => conn.upstream.channel("#modes")?.modes ?? "";
  try {
    await a.send("JOIN #modes");
    await poll("the channel's modes told", () => modesOf() !== "");
    await a.send("MODE #modes +kl secret 5");
    await poll("the change followed", () => /k.*secret/.test(modesOf()));
    const told = modesOf();

    await t.step("answered while the flood control holds every line", async () => {
      conn.setBurst(0);
      const from = a.lines.length;
      await a.send("MODE #modes");
      const reply = await a.waitFor((l) => l.command === "324", from);
      assertEquals(reply.prefix, "parley");
      assertEquals(reply.params.slice(1).join(" "), `#modes ${told}`);
      assert(/^\+[a-z]*k[a-z]*l/.test(reply.params[2]), `key and limit in ${reply.params[2]}`);
      assertEquals(reply.params.slice(3), ["secret", "5"]);
      const created = await a.waitFor((l) => l.command === "329", from);
      assert(/^[0-9]+$/.test(created.params[2]), "the channel's creation time");
      assertEquals(conn.queued, 0, "nothing was sent upstream for it");
    });

    await t.step("a labeled question: its answer carries the label", async () => {
      const from = a.lines.length;
      await a.send("@label=m1 MODE #modes");
      const start = await a.waitFor(
        (l) => l.command === "BATCH" && l.tags.get("label") === "m1",
        from,
      );
      assertEquals(start.params[1], "labeled-response");
      const id = start.params[0].slice(1);
      const reply = await a.waitFor((l) => l.command === "324", from);
      assertEquals(reply.tags.get("batch"), id);
    });

    await t.step("behind the client's own line still waiting, it goes to the server", async () => {
      const from = a.lines.length;
      await a.send("MODE #modes -l");
      await a.send("MODE #modes");
      await a.send("PING :checked");
      await a.waitFor((l) => l.command === "PONG" && l.params[1] === "checked", from);
      assertEquals(a.lines.slice(from).filter((l) => l.command === "324"), []);
      conn.setBurst(20);
      const reply = await a.waitFor((l) => l.command === "324", from);
      // The server's own answer, after the change went through.
      assert(reply.prefix !== "parley", `answered by ${reply.prefix}`);
      assert(!reply.params[2].includes("l"), `the limit is gone: ${reply.params[2]}`);
    });

    await t.step("a channel not joined, or a list, is the server's", async () => {
      conn.setBurst(0);
      const from = a.lines.length;
      await a.send("MODE #elsewhere");
      await a.send("MODE #modes b");
      // The first waits for the flood control, the second behind it in the client's queries.
      await poll("the first queued for the server", () => conn.queued === 1);
      await a.send("PING :later");
      await a.waitFor((l) => l.command === "PONG" && l.params[1] === "later", from);
      assertEquals(a.lines.slice(from).filter((l) => /^(324|367|368|403)$/.test(l.command)), []);
      conn.setBurst(20);
      const missing = await a.waitFor((l) => l.command === "403" || l.command === "401", from);
      assertEquals(missing.params[1], "#elsewhere");
      const end = await a.waitFor((l) => l.command === "368", from);
      assert(end.prefix !== "parley", `answered by ${end.prefix}`);
    });

    await t.step(
      "a list the server gave whole is answered from then on, changes followed",
      async () => {
        // The step before asked the server for the bans: its (empty) list was learned then.
        conn.setBurst(20);
        await a.send("MODE #modes +bb bad!*@* worse!*@*");
        await poll(
          "the bans followed",
          () => conn.upstream.list("#modes", "b")?.length === 2,
        );
        await a.send("MODE #modes -b bad!*@*");
        await poll("the unban followed", () => conn.upstream.list("#modes", "b")?.length === 1);
        conn.setBurst(0);
        const from = a.lines.length;
        await a.send("@label=b1 MODE #modes b");
        const entry = await a.waitFor((l) => l.command === "367", from);
        assertEquals(entry.prefix, "parley");
        assertEquals(entry.params.slice(1, 3), ["#modes", "worse!*@*"]);
        assertEquals(
          entry.params[3],
          conn.upstream.source,
          "set by the user, as the server shows them",
        );
        assert(/^[0-9]+$/.test(entry.params[4] ?? ""), `when: ${entry.params[4]}`);
        const end = await a.waitFor((l) => l.command === "368", from);
        assertEquals(end.prefix, "parley");
        assertEquals(end.tags.get("batch"), entry.tags.get("batch"));
        assert(entry.tags.get("batch"), "in the labeled batch");
        assertEquals(conn.queued, 0, "nothing was sent upstream for it");
        // `+b` asks the same, as some clients spell it.
        await a.send("MODE #modes +b");
        const again = await a.waitFor((l) => l.command === "368", a.lines.indexOf(end) + 1);
        assertEquals(again.prefix, "parley");
        conn.setBurst(20);
      },
    );

    await t.step("a channel left forgets its lists", async () => {
      await a.send("PART #modes");
      await poll("left", () => !conn.upstream.channel("#modes"));
      await a.send("JOIN #modes");
      await poll("back, its modes told", () => modesOf() !== "");
      assertEquals(conn.upstream.list("#modes", "b"), undefined);
    });

    await t.step("a join of many channels asks every one's modes, none dropped", async () => {
      conn.setBurst(20);
      const many = Array.from({ length: 40 }, (_, i) => `#many${i}`);
      const from = a.lines.length;
      await a.send(`JOIN ${many.join(",")}`);
      await a.waitFor((l) => l.command === "366" && l.params[1] === many.at(-1), from);
      // A few on the queries' own budget, the rest behind the flood control: none dropped.
      await poll(
        "every channel's modes told",
        () => many.every((ch) => conn.upstream.channel(ch)?.modes),
      );
    });
  } finally {
    a.close();
    await s.close();
  }
});
