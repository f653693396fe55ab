/**
 * draft/read-marker, sentence by sentence, against the listener on a real ngircd. docs/bouncer.md
 * lists each MUST and SHOULD with the step that tests it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient, type Received } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { poll } from "../support/poll.ts";
import { got, labeled, sync } from "../support/spec_client.ts";

const CAPS = ["draft/read-marker", "server-time", "message-tags", "batch", "labeled-response"];
const STAMP = /^timestamp=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let asked = 0;

/**
 * The answer to a line the client sends, told by its label: a MARKREAD of another client's (or
 * of a `read` event) may come at any time.
 */
async function ask(c: BouncerClient, line: string): Promise<Received> {
  const answer = await labeled(c, `r${++asked}`, line);
  assertEquals(answer.lines.length, 1, answer.lines.map((l) => l.raw).join("\n"));
  return answer.lines[0];
}

Deno.test("spec draft/read-marker: MARKREAD get, set, never back, to every client", async (t) => {
  const s = await setupBouncer();
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  const user = `${EMAIL}/${s.cid}`;
  await s.app.deps.irc.send(1, s.cid, "", "/join #marks");
  const a = await BouncerClient.attach(s.port, `${user}@a`, PASSWORD, CAPS, "a");
  const b = await BouncerClient.attach(s.port, `${user}@b`, PASSWORD, CAPS, "b");
  try {
    await a.waitFor((l) => l.command === "366" && l.params[1] === "#marks");
    await bob.join("#marks");
    const times: string[] = [];
    for (const text of ["one", "two", "three"]) {
      await bob.say("#marks", text);
      const l = await a.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === text);
      times.push(l.tags.get("time")!);
    }

    await t.step("the capability is draft/read-marker, not read-marker", async () => {
      const c = await BouncerClient.connect(s.port);
      await c.send("CAP LS 302");
      const ls = await c.waitFor((l) => l.command === "CAP" && l.params[1] === "LS");
      const words = ls.params.at(-1)!.split(" ").map((w) => w.split("=")[0]);
      assert(words.includes("draft/read-marker"));
      assert(!words.includes("read-marker"));
      c.close();
    });

    await t.step("get, never read: MARKREAD target * (a literal *)", async () => {
      const l = await ask(a, "MARKREAD #marks");
      assertEquals(l.params, ["#marks", "*"]);
    });

    await t.step("set: answered with MARKREAD and the timestamp, in server-time form", async () => {
      const l = await ask(a, `MARKREAD #marks timestamp=${times[1]}`);
      assertEquals(l.params[0], "#marks");
      assert(STAMP.test(l.params[1]), l.raw);
      assertEquals(l.params[1], `timestamp=${times[1]}`);
    });

    await t.step("the change reaches the user's other clients (SHOULD)", async () => {
      const l = await b.waitFor((l) =>
        l.command === "MARKREAD" && l.params[1] === `timestamp=${times[1]}`
      );
      assertEquals(l.params[0], "#marks");
    });

    await t.step("an older or equal timestamp: the stored value, never back", async () => {
      const older = await ask(a, `MARKREAD #marks timestamp=${times[0]}`);
      assertEquals(older.params[1], `timestamp=${times[1]}`);
      const same = await ask(a, `MARKREAD #marks timestamp=${times[1]}`);
      assertEquals(same.params[1], `timestamp=${times[1]}`);
      const got = await ask(a, "MARKREAD #marks");
      assertEquals(got.params[1], `timestamp=${times[1]}`);
    });

    await t.step("a later one moves it; a get says so", async () => {
      assertEquals(
        (await ask(a, `MARKREAD #marks timestamp=${times[2]}`)).params[1],
        `timestamp=${times[2]}`,
      );
      assertEquals((await ask(b, "MARKREAD #marks")).params[1], `timestamp=${times[2]}`);
    });

    await t.step("missing parameters: FAIL MARKREAD NEED_MORE_PARAMS", async () => {
      const l = await ask(a, "MARKREAD");
      assertEquals(l.params.slice(0, 2), ["MARKREAD", "NEED_MORE_PARAMS"]);
    });

    await t.step("invalid selectors: FAIL MARKREAD INVALID_PARAMS (SHOULD)", async () => {
      for (const bad of ["MARKREAD #marks yesterday", "MARKREAD #marks *", "MARKREAD * *"]) {
        const l = await ask(a, bad);
        assertEquals(l.params.slice(0, 2), ["MARKREAD", "INVALID_PARAMS"], bad);
      }
    });

    await t.step("the marker is sent after the JOIN, before its 366: on attach", async () => {
      const c = await BouncerClient.attach(s.port, `${user}@c`, PASSWORD, CAPS, "c");
      await c.waitFor((l) => l.command === "366" && l.params[1] === "#marks");
      const lines = c.lines;
      const join = lines.findIndex((l) => l.command === "JOIN" && l.params[0] === "#marks");
      const mark = lines.findIndex((l) => l.command === "MARKREAD" && l.params[0] === "#marks");
      const end = lines.findIndex((l) => l.command === "366" && l.params[1] === "#marks");
      assert(join >= 0 && join < mark && mark < end, lines.map((l) => l.raw).join("\n"));
      assertEquals(lines[mark].params[1], `timestamp=${times[2]}`);
      c.close();
    });

    await t.step("and after a live JOIN, before its 366", async () => {
      const from = a.lines.length;
      await s.app.deps.irc.send(1, s.cid, "", "/join #later");
      await a.waitFor((l) => l.command === "366" && l.params[1] === "#later", from);
      const lines = a.lines.slice(from);
      const join = lines.findIndex((l) => l.command === "JOIN" && l.params[0] === "#later");
      const mark = lines.findIndex((l) => l.command === "MARKREAD" && l.params[0] === "#later");
      const end = lines.findIndex((l) => l.command === "366" && l.params[1] === "#later");
      assert(join >= 0 && join < mark && mark < end, lines.map((l) => l.raw).join("\n"));
      // Parley's own WHO after the join is answered before a WHOIS sent after it: its replies
      // reach no IRC client (docs/bouncer.md).
      const whois = a.lines.length;
      await a.send("WHOIS bob");
      await a.waitFor((l) => l.command === "318", whois);
      assertEquals(got(a, from, "352", "354", "315"), []);
    });

    await t.step("a store failure: FAIL MARKREAD INTERNAL_ERROR (SHOULD)", async () => {
      const history = s.app.deps.store.messages.history!;
      const real = history.markRead;
      history.markRead = () => Promise.reject(new Error("the disk is gone"));
      try {
        const l = await ask(a, `MARKREAD #marks timestamp=${new Date().toISOString()}`);
        assertEquals(l.params.slice(0, 2), ["MARKREAD", "INTERNAL_ERROR"]);
      } finally {
        history.markRead = real;
      }
    });

    await t.step("another user's clients are told nothing of these markers", async () => {
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
        CAPS,
        "carol",
      );
      const from = carol.lines.length;
      await bob.say("#marks", "four");
      const four = await a.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "four");
      await ask(a, `MARKREAD #marks timestamp=${four.tags.get("time")}`);
      await b.waitFor((l) =>
        l.command === "MARKREAD" && l.params[1] === `timestamp=${four.tags.get("time")}`
      );
      await sync(carol);
      assertEquals(got(carol, from, "MARKREAD"), []);
      carol.close();
    });
  } finally {
    a.close();
    b.close();
    await bob.close();
    await s.close();
  }
});
