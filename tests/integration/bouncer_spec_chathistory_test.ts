/**
 * draft/chathistory and draft/event-playback, sentence by sentence, against the listener on a
 * real ngircd. docs/bouncer.md lists each MUST and SHOULD with the step that tests it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient, type Received } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { poll } from "../support/poll.ts";
import { labeled, sync } from "../support/spec_client.ts";

const BASE = ["draft/chathistory", "batch", "server-time", "message-tags", "labeled-response"];
const STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let n = 0;

/** The answer to one CHATHISTORY command: its batch start and the lines in it. */
async function history(c: BouncerClient, args: string) {
  const a = await labeled(c, `h${++n}`, `CHATHISTORY ${args}`);
  const inner = a.lines.filter((l) => l !== a.batch && l.command !== "BATCH");
  return { batch: a.batch, lines: inner, all: a.lines };
}

const texts = (lines: Received[]) =>
  lines.filter((l) => l.command === "PRIVMSG").map((l) => l.params[1]);

Deno.test("spec draft/chathistory: batches, selectors, limits, errors, event playback", async (t) => {
  const s = await setupBouncer();
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  const user = `${EMAIL}/${s.cid}`;
  await s.app.deps.irc.send(1, s.cid, "", "/join #Hist");
  const c = await BouncerClient.attach(s.port, `${user}@h`, PASSWORD, BASE, "h");
  const events = await BouncerClient.attach(s.port, `${user}@ev`, PASSWORD, [
    ...BASE,
    "draft/event-playback",
  ], "ev");
  try {
    await c.waitFor((l) => l.command === "366" && l.params[1] === "#Hist");
    await bob.join("#hist");
    await bob.waitForMember("#hist", "alice");
    const live: Received[] = [];
    for (let i = 0; i < 8; i++) {
      await bob.say("#hist", `line ${i}`);
      live.push(await c.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === `line ${i}`));
    }
    await bob.send("PART #hist :brb");
    await bob.join("#hist");
    await bob.say("#hist", "after the rejoin");
    await c.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "after the rejoin");

    await t.step("the capabilities are draft/chathistory and draft/event-playback", async () => {
      const p = await BouncerClient.connect(s.port);
      await p.send("CAP LS 302");
      const ls = await p.waitFor((l) => l.command === "CAP" && l.params[1] === "LS");
      const words = ls.params.at(-1)!.split(" ").map((w) => w.split("=")[0]);
      for (const w of ["draft/chathistory", "draft/event-playback"]) assert(words.includes(w), w);
      for (const w of ["chathistory", "event-playback"]) assert(!words.includes(w), w);
      p.close();
    });

    await t.step("ISUPPORT: CHATHISTORY=<limit> (MUST) and MSGREFTYPES (SHOULD)", () => {
      const isupport = c.lines.filter((l) => l.command === "005").flatMap((l) => l.params);
      const limit = isupport.find((w) => w.startsWith("CHATHISTORY="));
      assert(limit && Number(limit.split("=")[1]) > 0, limit);
      assertEquals(
        isupport.find((w) => w.startsWith("MSGREFTYPES=")),
        "MSGREFTYPES=timestamp,msgid",
      );
    });

    await t.step(
      "no automatic playback for a client with draft/chathistory (SHOULD NOT)",
      async () => {
        const d = await BouncerClient.attach(s.port, `${user}@fresh`, PASSWORD, BASE, "fresh");
        await d.waitFor((l) => l.command === "366" && l.params[1] === "#Hist");
        await sync(d);
        assertEquals(d.lines.filter((l) => l.command === "PRIVMSG" || l.command === "BATCH"), []);
        d.close();
      },
    );

    await t.step("with batch: a chathistory batch naming the canonical target", async () => {
      const h = await history(c, "LATEST #HIST * 3");
      assert(h.batch, h.all.map((l) => l.raw).join("\n"));
      assertEquals(h.batch.params.slice(1), ["chathistory", "#Hist"]);
      const id = h.batch.params[0].slice(1);
      assert(/^[A-Za-z0-9-]+$/.test(id), id);
      for (const l of h.lines) assertEquals(l.tags.get("batch"), id, l.raw);
      assertEquals(texts(h.lines), ["line 6", "line 7", "after the rejoin"]);
    });

    await t.step("without event-playback: PRIVMSG and NOTICE only (MUST NOT others)", async () => {
      const h = await history(c, "LATEST #hist * 100");
      const kinds = new Set(h.lines.map((l) => l.command));
      for (const k of kinds) assert(k === "PRIVMSG" || k === "NOTICE", k);
    });

    await t.step("with event-playback: the PART and JOIN too (SHOULD)", async () => {
      const h = await history(events, "LATEST #hist * 100");
      const kinds = h.lines.map((l) => l.command);
      assert(kinds.includes("PART") && kinds.includes("JOIN"), kinds.join(" "));
    });

    await t.step("the msgid and time are those the line had live (MUST, SHOULD)", async () => {
      const h = await history(c, "LATEST #hist * 100");
      const byId = new Map(h.lines.map((l) => [l.tags.get("msgid"), l]));
      for (const l of live) {
        const old = byId.get(l.tags.get("msgid"));
        assert(old, `msgid ${l.tags.get("msgid")} in history`);
        assertEquals(old.tags.get("time"), l.tags.get("time"));
        assert(STAMP.test(old.tags.get("time")!), old.raw);
      }
    });

    await t.step("ascending time, one order for equal times (SHOULD)", async () => {
      const h = await history(events, "LATEST #hist * 100");
      const times = h.lines.map((l) => l.tags.get("time")!);
      assertEquals([...times].sort(), times, "oldest first");
      assertEquals(new Set(times).size, times.length, "each line its own instant");
    });

    await t.step("selectors are excluded from the count (MUST)", async () => {
      const id = (i: number) => `msgid=${live[i].tags.get("msgid")}`;
      const ts = (i: number) => `timestamp=${live[i].tags.get("time")}`;
      assertEquals(texts((await history(c, `BEFORE #hist ${id(4)} 2`)).lines), [
        "line 2",
        "line 3",
      ]);
      assertEquals(texts((await history(c, `AFTER #hist ${ts(4)} 2`)).lines), ["line 5", "line 6"]);
      assertEquals(
        texts((await history(c, `BETWEEN #hist ${id(1)} ${id(5)} 10`)).lines),
        ["line 2", "line 3", "line 4"],
      );
      assertEquals(
        texts((await history(c, `BETWEEN #hist ${ts(5)} ${ts(1)} 2`)).lines),
        ["line 3", "line 4"],
        "from the first selector, nearest it",
      );
      assertEquals(texts((await history(c, `LATEST #hist ${id(5)} 2`)).lines), [
        "line 7",
        "after the rejoin",
      ]);
      const around = texts((await history(c, `AROUND #hist ${id(4)} 3`)).lines);
      assert(around.includes("line 4") && around.length === 3, around.join());
    });

    await t.step("paging by msgid meets every line once", async () => {
      const seen: string[] = [];
      let ref = "*";
      for (let page = 0; page < 10; page++) {
        const h = await history(
          c,
          `BEFORE #hist ${
            ref === "*" ? `timestamp=${new Date(Date.now() + 60_000).toISOString()}` : ref
          } 3`,
        );
        const lines = h.lines.filter((l) => l.command === "PRIVMSG");
        if (!lines.length) break;
        seen.unshift(...texts(lines));
        ref = `msgid=${lines[0].tags.get("msgid")}`;
      }
      assertEquals(seen, [...live.map((l) => l.params[1]), "after the rejoin"]);
    });

    await t.step("TARGETS: a draft/chathistory-targets batch, the bare time", async () => {
      const from = new Date(Date.now() - 3600_000).toISOString();
      const to = new Date(Date.now() + 3600_000).toISOString();
      const h = await history(c, `TARGETS timestamp=${from} timestamp=${to} 10`);
      assertEquals(h.batch?.params[1], "draft/chathistory-targets");
      const hist = h.lines.find((l) => l.params[1] === "#Hist");
      assert(hist, h.all.map((l) => l.raw).join("\n"));
      assertEquals(hist.params[0], "TARGETS");
      assert(STAMP.test(hist.params[2]), hist.raw);
      const byId = await history(
        c,
        `TARGETS ${`msgid=${live[0].tags.get("msgid")}`} timestamp=${to} 10`,
      );
      assertEquals(byId.lines.map((l) => l.params.slice(0, 2)), [[
        "CHATHISTORY",
        "INVALID_PARAMS",
      ]]);
    });

    await t.step("nothing to return: an empty batch (SHOULD)", async () => {
      const h = await history(c, "LATEST #nobodyhere * 10");
      assert(h.batch);
      assertEquals(h.lines, []);
    });

    await t.step(
      "without batch: the lines alone (no capability enforced, SHOULD NOT)",
      async () => {
        const bare = await BouncerClient.attach(s.port, `${user}@bare`, PASSWORD, [
          "draft/chathistory",
        ]);
        await bare.waitFor((l) => l.command === "366" && l.params[1] === "#Hist");
        await sync(bare);
        const from = bare.lines.length;
        await bare.send("CHATHISTORY LATEST #hist * 2");
        await bare.waitFor(
          (l) => l.command === "PRIVMSG" && l.params[1] === "after the rejoin",
          from,
        );
        await sync(bare);
        const got = bare.lines.slice(from).filter((l) => l.command !== "PONG");
        assertEquals(got.map((l) => l.command), ["PRIVMSG", "PRIVMSG"]);
        bare.close();
      },
    );

    await t.step("a private conversation includes the user's own lines (SHOULD)", async () => {
      await c.send("PRIVMSG bob :hello bob");
      await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "hello bob");
      await bob.send("PRIVMSG alice :hello alice");
      await c.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "hello alice");
      await poll(
        "stored",
        async () => texts((await history(c, "LATEST bob * 10")).lines).length === 2,
      );
      assertEquals(texts((await history(c, "LATEST bob * 10")).lines), [
        "hello bob",
        "hello alice",
      ]);
    });

    await t.step(
      "FAIL codes: INVALID_PARAMS, INVALID_TARGET, MESSAGE_ERROR, INVALID_MSGREFTYPE (SHOULD)",
      async () => {
        const fail = async (args: string) => {
          const h = await history(c, args);
          assertEquals(h.all.length, 1, h.all.map((l) => l.raw).join("\n"));
          assertEquals(h.all[0].command, "FAIL", h.all[0].raw);
          assertEquals(h.all[0].params[0], "CHATHISTORY");
          return h.all[0].params[1];
        };
        assertEquals(await fail("NONSENSE #hist * 10"), "INVALID_PARAMS");
        assertEquals(await fail("LATEST #hist *"), "INVALID_PARAMS");
        assertEquals(await fail("LATEST #hist * 10 extra"), "INVALID_PARAMS");
        assertEquals(await fail("BEFORE #hist timestamp=yesterday 10"), "INVALID_PARAMS");
        assertEquals(await fail("LATEST * * 10"), "INVALID_TARGET");
        assertEquals(await fail("BEFORE #hist msgid=zz.zz 10"), "MESSAGE_ERROR");
        assertEquals(await fail("BEFORE #hist seq=12 10"), "INVALID_MSGREFTYPE");
      },
    );

    await t.step("another user cannot read this history (MUST)", async () => {
      await s.api.post("/api/settings", { irc_allow_private: true });
      const invite = await s.api.post("/api/user/user@example.com/invite");
      const params = new URL(invite.body.url).searchParams;
      const api2 = s.app.client();
      await api2.register("user@example.com", PASSWORD, {
        exp: params.get("exp")!,
        token: params.get("token")!,
      });
      const made = await api2.post("/api/connections", { url: `${s.ngircd.url}?nick=carol` });
      const cid2 = made.body.connection_id as string;
      await poll("carol connected", async () => {
        const r = await api2.get("/api/connections");
        return r.body.connections[0]?.state === "connected";
      });
      const carol = await BouncerClient.attach(
        s.port,
        `user@example.com/${cid2}@x`,
        PASSWORD,
        BASE,
      );
      const h = await history(carol, "LATEST #hist * 100");
      assertEquals(h.lines, [], "nothing of the other user's channel");
      const priv = await history(carol, "LATEST bob * 100");
      assertEquals(priv.lines, [], "nor of their private conversation");
      carol.close();
    });
  } finally {
    c.close();
    events.close();
    await bob.close();
    await s.close();
  }
});
