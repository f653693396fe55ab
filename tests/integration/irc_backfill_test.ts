/**
 * What a gap cost, filled from a server that keeps history (draft/chathistory): after the
 * connection comes back, the channel's lines and the private conversations of the gap are asked
 * (`CHATHISTORY BETWEEN`, `TARGETS`) and stored in place, once; an attached IRC client is not sent
 * them as news. Against a small server on loopback that keeps the lines it is given.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncerOn } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import {
  answerJoin,
  type HostileClient,
  type HostileIrc,
  type RememberedLine,
  startHostileIrc,
} from "../support/hostile_irc.ts";
import { poll } from "../support/poll.ts";
import type { ApiClient } from "../support/api.ts";
import type { BusEvent } from "../../protocol/events.ts";

const CAPS = ["draft/chathistory", "batch", "server-time", "message-tags"];

interface Line {
  from: string;
  message: string;
  ts: string;
  type: string;
  highlight?: boolean;
}

/**
 * Closes the server's side of the connection and waits until Parley has seen it go: the gap
 * starts then, and the lines a test says in it come after. The server welcomes the reconnect
 * after 2.5 s (longer than a second: a line less than that before the newest is filed after it).
 */
async function goDown(
  irc: HostileIrc,
  server: HostileClient,
  s: { api: ApiClient; cid: string },
): Promise<void> {
  irc.delayWelcome(2500);
  server.close();
  await poll("the connection is down", async () => {
    const r = await s.api.get("/api/connections");
    const c = r.body.connections.find((c: { connection_id: string }) => c.connection_id === s.cid);
    return c?.state !== "connected";
  });
}

/**
 * An IRC client attached through the listener, and how many lines it had once what the attach sent
 * (a replay of the channel's last lines, not these tests') has come.
 */
async function attachTerm(s: { port: number; cid: string }) {
  const client = await BouncerClient.attach(
    s.port,
    `${EMAIL}/${s.cid}@term`,
    PASSWORD,
    ["batch", "server-time", "message-tags"],
    "term",
  );
  await client.send("PING :attached");
  await client.waitFor((l) => l.command === "PONG" && l.params[1] === "attached");
  return { client, from: client.lines.length };
}

Deno.test("irc backfill: lines missed in a gap are asked of a server that keeps history", async () => {
  const irc = startHostileIrc({ caps: CAPS, history: { limit: 100 } });
  const s = await setupBouncerOn(irc.url);
  let server = await irc.registered();
  const lines = async (conv: string): Promise<Line[]> => {
    const r = await s.api.get(
      `/api/connection/${s.cid}/conversation/${encodeURIComponent(conv)}/messages`,
    );
    return r.body.messages ?? [];
  };
  let client: BouncerClient | undefined;
  // What a browser's socket would be told.
  const told: { event: string; message?: string; history?: boolean }[] = [];
  const unsubscribe = s.app.deps.bus.subscribe(1, (ev) => void told.push(ev as typeof told[0]));
  try {
    await s.app.deps.irc.send(1, s.cid, "", "/join #chan");
    await answerJoin(server);
    // The server's clock runs ahead of Parley's: its time for this line will lie in the gap.
    const before = new Date(Date.now() + 1500).toISOString();
    await server.send(`@time=${before};msgid=m1 :bob!b@h PRIVMSG #chan :said live`);
    // A private conversation with nothing said in the gap.
    await server.send(":dave!d@h PRIVMSG alice :hello before");
    await poll(
      "the live lines stored",
      async () =>
        (await lines("#chan")).some((l) => l.message === "said live") &&
        (await lines("dave")).length > 0,
    );
    // What the web is told from here on is about the gap.
    told.length = 0;
    const attached = await attachTerm(s);
    client = attached.client;
    const fromAttach = attached.from;
    // Down for a while: the server keeps what was said meanwhile.
    await goDown(irc, server, s);
    const at = (ms: number) => new Date(Date.now() + ms).toISOString();
    const missed = [
      { time: at(100), msgid: "m2", text: "said while you were away" },
      { time: at(200), msgid: "m3", text: "alice: are you there?" },
      // The live line again, at the time the server gave it, in the gap: kept once.
      { time: before, msgid: "m1", text: "said live" },
    ];
    for (const m of missed) {
      irc.remember({ ...m, source: "bob!b@h", command: "PRIVMSG", target: "#chan" });
    }
    irc.remember({
      time: at(150),
      msgid: "m4",
      source: "carol!c@h",
      command: "PRIVMSG",
      target: "alice",
      text: "psst, a private word",
    });
    server = await irc.registered();
    await answerJoin(server);

    await poll(
      "the gap's lines are stored",
      async () => (await lines("#chan")).some((l) => l.message === "alice: are you there?"),
      20_000,
    );
    const chan = await lines("#chan");
    const texts = chan.filter((l) => l.type === "private").map((l) => l.message);
    assertEquals(
      texts.filter((t) => t !== "said live"),
      ["said while you were away", "alice: are you there?"],
      JSON.stringify(chan),
    );
    assertEquals(texts.filter((t) => t === "said live").length, 1, "a line is kept once");
    assertEquals(chan.find((l) => l.message === "alice: are you there?")?.highlight, true);
    // Shown where it belongs and counted as a mention on every device, but as history: no
    // desktop notification (nor a push) hours late.
    assert(told.some((e) => e.event === "message" && e.message === "alice: are you there?"));
    const notified = told.filter((e) => e.event === "notification");
    assert(notified.some((e) => e.message === "alice: are you there?"), JSON.stringify(told));
    assertEquals(notified.filter((e) => !e.history), []);
    const asked = server.lines.filter((l) => l.startsWith("CHATHISTORY"));
    assert(asked.some((l) => l.startsWith("CHATHISTORY TARGETS timestamp=")), asked.join("\n"));
    assert(
      asked.some((l) => l.startsWith("CHATHISTORY BETWEEN #chan timestamp=")),
      asked.join("\n"),
    );

    await poll(
      "the private conversation is filled",
      async () => (await lines("carol")).some((l) => l.message === "psst, a private word"),
      20_000,
    );
    const conversations = (await s.api.get("/api/conversations")).body.conversations as {
      name: string;
      unread: number;
    }[];
    assert(conversations.find((c) => c.name === "carol")!.unread >= 1, "counted unread");

    // History, not news: the attached client got none of it live.
    await client.send("PING :after");
    await client.waitFor((l) => l.command === "PONG" && l.params[1] === "after");
    const news = client.lines.slice(fromAttach).filter((l) =>
      ["BATCH", "CHATHISTORY", "PRIVMSG"].includes(l.command)
    ).map((l) => l.raw);
    assertEquals(news, []);

    // Filled whole, the gap left nothing missing: no conversation marks it (#chan got fewer
    // lines than asked, carol's too, and TARGETS did not name dave). Everything the server sent
    // before this line is handled once it is stored.
    await server.send(":bob!b@h PRIVMSG #chan :said after");
    await poll(
      "the next live line stored",
      async () => (await lines("#chan")).some((l) => l.message === "said after"),
    );
    for (const conv of ["#chan", "carol", "dave"]) {
      const gaps = (await lines(conv)).filter((l) => l.type === "gap");
      assertEquals(gaps, [], conv);
    }
  } finally {
    unsubscribe();
    client?.close();
    await s.close();
    await irc.close();
  }
});

Deno.test("irc backfill: a server that answers past what was asked is not followed", async () => {
  // It says 3 lines at most, and answers with all it has.
  const irc = startHostileIrc({ caps: CAPS, history: { limit: 3, unbounded: true } });
  const s = await setupBouncerOn(irc.url);
  let server = await irc.registered();
  try {
    await s.app.deps.irc.send(1, s.cid, "", "/join #chan");
    await answerJoin(server);
    await server.send(":bob!b@h PRIVMSG #chan :said live");
    await goDown(irc, server, s);
    const base = Date.now();
    for (let i = 1; i <= 6; i++) {
      irc.remember({
        time: new Date(base + 50 * i).toISOString(),
        msgid: `x${i}`,
        source: "bob!b@h",
        command: "PRIVMSG",
        target: "#chan",
        text: `missed ${i}`,
      });
    }
    server = await irc.registered();
    await answerJoin(server);
    const asked = await server.waitFor((l) => l.startsWith("CHATHISTORY BETWEEN #chan"));
    assert(asked.endsWith(" 3"), asked);
    await poll("the first three stored", async () => {
      const r = await s.api.get(`/api/connection/${s.cid}/conversation/%23chan/messages`);
      return (r.body.messages as Line[]).some((l) => l.message === "missed 3");
    }, 20_000);
    // Everything the server sent is handled by now: a line after it is stored after them.
    await server.send(":bob!b@h PRIVMSG #chan :said after");
    await poll("the next live line stored", async () => {
      const r = await s.api.get(`/api/connection/${s.cid}/conversation/%23chan/messages`);
      return (r.body.messages as Line[]).some((l) => l.message === "said after");
    });
    const r = await s.api.get(`/api/connection/${s.cid}/conversation/%23chan/messages`);
    const chan = r.body.messages as Line[];
    assertEquals(
      chan.filter((l) => l.message.startsWith("missed")).map((l) => l.message),
      ["missed 1", "missed 2", "missed 3"],
    );
    // As many lines as asked came: there may be more, so the gap is marked, after them.
    const gap = chan.findIndex((l) => l.type === "gap");
    assert(gap > chan.findIndex((l) => l.message === "missed 3"), JSON.stringify(chan));
  } finally {
    await s.close();
    await irc.close();
  }
});

Deno.test("irc backfill: a gap's events are kept in place (draft/event-playback)", async () => {
  const irc = startHostileIrc({
    caps: [...CAPS, "draft/event-playback"],
    history: { limit: 100 },
  });
  const s = await setupBouncerOn(irc.url);
  let server = await irc.registered();
  let client: BouncerClient | undefined;
  const lines = async (): Promise<Line[]> =>
    (await s.api.get(`/api/connection/${s.cid}/conversation/%23chan/messages`)).body.messages;
  try {
    assert(server.caps.has("draft/event-playback"), "asked of a server that offers it");
    await s.app.deps.irc.send(1, s.cid, "", "/join #chan");
    await answerJoin(server);
    await server.send(":bob!b@h PRIVMSG #chan :said live");
    await poll("the live line stored", async () => (await lines()).length > 0);
    const attached = await attachTerm(s);
    client = attached.client;
    const fromAttach = attached.from;
    // What the web client is told: each event in its place, and no live change of the channel.
    const told: BusEvent[] = [];
    const unsubscribe = s.app.deps.bus.subscribe(1, (ev) => {
      if (ev.event === "past" || ev.event === "state") told.push(ev);
    });
    await goDown(irc, server, s);
    const base = Date.now();
    const events: [string, RememberedLine["command"], string[] | undefined, string?][] = [
      ["carol!c@h", "JOIN", ["#chan"]],
      ["carol!c@h", "PRIVMSG", undefined, "hello all"],
      ["carol!c@h", "TOPIC", ["#chan", "a topic of the gap"]],
      ["carol!c@h", "KICK", ["#chan", "dave", "out"]],
      ["carol!c@h", "MODE", ["#chan", "+m"]],
      ["bob!b@h", "NICK", ["bobby"]],
      ["bobby!b@h", "QUIT", ["gone"]],
      ["carol!c@h", "PART", ["#chan", "bye"]],
    ];
    events.forEach(([source, command, params, text], i) =>
      irc.remember({
        time: new Date(base + 100 + 50 * i).toISOString(),
        msgid: `e${i}`,
        source,
        command,
        target: "#chan",
        params,
        text,
      })
    );
    // In carol's private conversation: a word, then her quit (its history holds her own events).
    irc.remember({
      time: new Date(base + 600).toISOString(),
      msgid: "p1",
      source: "carol!c@h",
      command: "PRIVMSG",
      target: "alice",
      text: "a word in private",
    });
    irc.remember({
      time: new Date(base + 650).toISOString(),
      msgid: "p2",
      source: "carol!c@h",
      command: "QUIT",
      target: "alice",
      params: ["gone home"],
    });
    server = await irc.registered();
    await answerJoin(server);
    await poll(
      "the gap's last event stored",
      async () => (await lines()).some((l) => l.type === "part" && l.message.includes("carol")),
      20_000,
    );
    const gap = (await lines()).filter((l) => Date.parse(l.ts) > base);
    assertEquals(
      gap.filter((l) => l.type !== "gap" && l.type !== "join" || l.message.includes("carol"))
        .map((l) => [l.type, l.from]),
      [
        ["join", "carol"],
        ["private", "carol"],
        ["topic", "carol"],
        ["kick", "carol"],
        ["mode", "carol"],
        ["nick_change", "bob"],
        ["quit", "bobby"],
        ["part", "carol"],
      ],
      JSON.stringify(gap),
    );
    // History, not news: the channel's topic is what the rejoin told (none), and the attached
    // client was sent none of it.
    const conv = (await s.api.get("/api/conversations")).body.conversations.find((
      c: { name: string },
    ) => c.name === "#chan");
    assertEquals(conv.topic, "");
    const privately = async () =>
      ((await s.api.get(`/api/connection/${s.cid}/conversation/carol/messages`)).body.messages ??
        []) as Line[];
    await poll("the private conversation's quit", async () => (await privately()).length >= 2);
    assertEquals((await privately()).map((l) => [l.type, l.from]), [
      ["private", "carol"],
      ["quit", "carol"],
    ]);
    unsubscribe();
    assertEquals(
      told.flatMap((ev) => ev.event === "past" ? [[ev.conversation_id, ev.type, ev.from]] : []),
      [
        ["#chan", "join", "carol"],
        ["#chan", "topic", "carol"],
        ["#chan", "kick", "carol"],
        ["#chan", "mode", "carol"],
        ["#chan", "nick_change", "bob"],
        ["#chan", "quit", "bobby"],
        ["#chan", "part", "carol"],
        ["carol", "quit", "carol"],
      ],
    );
    const kick = told.find((ev) => ev.event === "past" && ev.type === "kick");
    assertEquals(kick?.event === "past" && kick.fields, {
      nick: "dave",
      kicker: "carol",
      message: "out",
    });
    // Stored at the time the history page gives it: its identity there.
    const stored = (await lines()).find((l) => l.type === "kick");
    assertEquals(kick?.event === "past" && kick.ts, stored?.ts);
    assertEquals(
      told.filter((ev) => ev.event === "state" && "nick" in ev && ev.nick === "carol"),
      [],
      "a live change for a past event",
    );
    await client.send("PING :after");
    await client.waitFor((l) => l.command === "PONG" && l.params[1] === "after");
    const sentToClient = client.lines.slice(fromAttach).filter((l) =>
      ["TOPIC", "KICK", "MODE", "NICK", "QUIT", "PART", "PRIVMSG"].includes(l.command)
    ).map((l) => l.raw);
    assertEquals(sentToClient, []);
  } finally {
    client?.close();
    await s.close();
    await irc.close();
  }
});
