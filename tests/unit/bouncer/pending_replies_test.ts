/**
 * bouncer/pending_replies.ts: what answers each command (replySpec), and where a reply goes: the
 * first waiting entry that takes it by numeric and name; its end, its trail and the errors that
 * end it; a reply no entry takes is everyone's (route gives nothing); nothing stalls the queue.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { PendingReplies, replySpec } from "../../../bouncer/pending_replies.ts";
import { parseMessage } from "../../../irc/protocol/message.ts";

const isChannel = (n: string) => n.startsWith("#");

function queue(opts: { max?: number; now?: () => number } = {}) {
  const q = new PendingReplies<string>({ timeoutMs: 1000, now: () => 0, ...opts });
  /** A client's command, written to the server at once (as with no flood control to wait for). */
  const ask = (client: string, raw: string, upstreamLabel?: string) => {
    const m = parseMessage(raw)!;
    const spec = replySpec(m.command, m.params, isChannel);
    const e = q.add(client, m.command, m.params, spec, undefined, upstreamLabel);
    if (e) q.written(e);
    return e;
  };
  /** Who gets the reply ("" when it is everyone's), and "(end)" when it ended its entry. */
  const to = (raw: string) => {
    const r = q.route(parseMessage(raw)!);
    return r ? `${r.entry.client}${r.ends ? " (end)" : ""}` : "";
  };
  return { q, ask, to };
}

Deno.test("replySpec: what answers each command, and what may get no answer", () => {
  const spec = (raw: string) => {
    const m = parseMessage(raw)!;
    return replySpec(m.command, m.params, isChannel);
  };
  assertEquals(spec("NAMES #a,#b,#c").endsNeeded, 3);
  assert(spec("NAMES").anySubject && (spec("NAMES").endsNeeded ?? 1) === 1);
  assert(spec("WHO").anySubject && !spec("WHO #c").anySubject);
  assert(spec("MODE #c").ends.has("324") && spec("MODE #c").trail?.has("329"));
  assert(spec("MODE #c +b").ends.has("368"));
  assert(spec("MODE #c b").ends.has("368"));
  assert(spec("MODE #c e").ends.has("349"));
  assert(spec("MODE #c I").ends.has("347"));
  assertEquals(spec("MODE #c +o bob").answered, false);
  assertEquals(spec("MODE #c +m").answered, false);
  assert(spec("MODE me").ends.has("221"));
  assertEquals(spec("MODE me +i").answered, false);
  assert(spec("TOPIC #c").replies.has("332"));
  assertEquals(spec("TOPIC #c :new topic").answered, false);
  assert(spec("MONITOR L").ends.has("733"));
  assertEquals(spec("MONITOR + bob").answered, false);
  assert(spec("MONITOR + bob").ends.has("734"), "a full list ends it");
  assert(spec("WHO #c").subjectAt?.["352"] === 1, "a channel's WHO replies name it");
  assertEquals(spec("WHO bob").subjectAt, undefined);
  assert(spec("STATS u").ends.has("219"));
  assert(spec("VERSION").trail?.has("005"));
  assertEquals(spec("KICK #c bob").answered, false);
  assertEquals(spec("FROBNICATE x").answered, false);
});

Deno.test("pending replies: NAMES of two channels ends at the second 366", () => {
  const { q, ask, to } = queue();
  ask("a", "NAMES #one,#two");
  assertEquals(to(":s 353 me = #one :x y"), "a");
  assertEquals(to(":s 366 me #one :End of NAMES list"), "a");
  assertEquals(q.size, 1);
  assertEquals(to(":s 353 me = #two :z"), "a");
  assertEquals(to(":s 366 me #two :End of NAMES list"), "a (end)");
  assertEquals(q.size, 0);
  // Names after a JOIN of the user's own are no one's query: everyone gets them.
  assertEquals(to(":s 353 me = #three :z"), "");
});

Deno.test("pending replies: a trail after the end still belongs to its entry, once", () => {
  const { ask, to } = queue();
  ask("a", "MODE #c");
  ask("b", "VERSION");
  assertEquals(to(":s 324 me #c +nt"), "a (end)");
  assertEquals(to(":s 329 me #c 1700000000"), "a");
  assertEquals(to(":s 329 me #c 1700000000"), "", "a second trail line is nobody's");
  assertEquals(to(":s 351 me ngircd-27 irc :x"), "b (end)");
  assertEquals(to(":s 005 me CHANTYPES=# :are supported"), "b");
  assertEquals(to(":s 005 me NICKLEN=9 :are supported"), "", "only the line right after the end");
});

Deno.test("pending replies: names are matched in any case, and another name is not taken", () => {
  const { ask, to } = queue();
  ask("a", "WHOIS BoB");
  ask("b", "WHOIS carol");
  assertEquals(to(":s 311 me carol u h * :Carol"), "b");
  assertEquals(to(":s 311 me bob u h * :Bob"), "a");
  assertEquals(to(":s 318 me CAROL :End of WHOIS"), "b (end)");
  assertEquals(to(":s 318 me bob :End of WHOIS"), "a (end)");
  assertEquals(to(":s 318 me dave :End of WHOIS"), "");
});

Deno.test("pending replies: an error names what it ends; one naming nothing is everyone's", () => {
  const { q, ask, to } = queue();
  ask("a", "KICK #c bob");
  ask("b", "TOPIC #d :new topic");
  // The web client's TOPIC of another channel, refused: neither's.
  assertEquals(to(":s 482 me #e :You're not channel operator"), "");
  assertEquals(to(":s 442 me #c :You're not on that channel"), "a (end)");
  assertEquals(to(":s 482 me #d :You're not channel operator"), "b (end)");
  assertEquals(q.size, 0);
  ask("a", "FROBNICATE x");
  assertEquals(to(":s 421 me FROBNICATE :Unknown command"), "a (end)");
  ask("a", "MODE me +Z");
  // 501 names no command or channel: it is not guessed to be anyone's.
  assertEquals(to(":s 501 me :Unknown MODE flag"), "");
  assertEquals(to("PRIVMSG #c :not a reply"), "");
});

Deno.test("pending replies: standard replies go to the command they name; FAIL ends it", () => {
  const { q, ask, to } = queue();
  ask("a", "SETNAME :New Name");
  ask("b", "CHATHISTORY LATEST #c * 10");
  assertEquals(to(":s WARN SETNAME SLOW :careful"), "a");
  assertEquals(to(":s NOTE SETNAME X :fyi"), "a");
  assertEquals(to(":s FAIL SETNAME INVALID_REALNAME :Bad"), "a (end)");
  assertEquals(to(":s FAIL CHATHISTORY INVALID_TARGET LATEST #c :nope"), "b (end)");
  assertEquals(q.size, 0);
  assertEquals(to(":s FAIL SETNAME INVALID_REALNAME :Bad"), "");
});

Deno.test("pending replies: a labeled entry is answered by its label, not by numerics", () => {
  const { q, ask, to } = queue();
  const labeled = ask("a", "WHOIS bob", "L1")!;
  ask("b", "WHOIS bob");
  assertEquals(to(":s 311 me bob u h * :Bob"), "b", "the unlabeled entry takes it");
  assertEquals(q.byLabel("L1"), labeled);
  q.openBatch("batch1", labeled);
  assertEquals(q.inBatch("batch1"), labeled);
  q.remove(labeled);
  assertEquals(q.inBatch("batch1"), undefined, "its batch goes with it");
  assertEquals(q.byLabel("L1"), undefined);
});

Deno.test("pending replies: a client that left hands its answers over", () => {
  const { q, ask, to } = queue();
  ask("a", "WHOIS bob");
  q.replace("a", "web");
  assertEquals(to(":s 318 me bob :End"), "web (end)");
  ask("a", "LIST");
  ask("b", "MOTD");
  const cleared = q.clear();
  assertEquals(cleared.map((e) => e.client), ["a", "b"]);
  assertEquals(q.size, 0);
  assertEquals(to(":s 376 me :End of MOTD"), "");
});

Deno.test("pending replies: a full queue of queries refuses one more; expiry frees it", () => {
  let now = 0;
  const { q, ask, to } = queue({ max: 2, now: () => now });
  assert(ask("a", "WHOIS x"));
  assert(ask("a", "WHOIS y"));
  assertEquals(ask("b", "WHOIS z"), undefined, "no entry may get no answer, so none gives way");
  now = 999;
  assertEquals(to(":s 311 me y u h * :Y"), "a", "a reply pushes y's deadline back");
  now = 1000;
  assertEquals(q.expired().map((e) => [...e.subjects].join(",")), ["whois,x"]);
  assert(ask("b", "WHOIS z"));
  now = 1998;
  assertEquals(q.expired(), []);
  now = 1999;
  assertEquals(q.expired().map((e) => [...e.subjects].join(",")), ["whois,y"]);
  now = 2000;
  assertEquals(q.expired().map((e) => [...e.subjects].join(",")), ["whois,z"]);
  assertEquals(q.size, 0);
});

Deno.test("pending replies: every entry that ends otherwise still lets later answers pass", () => {
  const { ask, to } = queue();
  // Three commands that get no answer, then a query: the query's answer is not held behind them.
  ask("a", "KICK #c bob");
  ask("a", "MODE #c +o bob");
  ask("a", "INVITE dave #c");
  ask("b", "LUSERS");
  assertEquals(to(":s 251 me :There are 3 users"), "b");
  assertEquals(to(":s 266 me :Current global users"), "b (end)");
  assertEquals(to(":s 250 me :Highest connection count"), "b", "its trail");
});

Deno.test("pending replies: a command behind the flood control waits for its answer however long", () => {
  let now = 0;
  const q = new PendingReplies<string>({ timeoutMs: 1000, now: () => now });
  const add = (client: string, raw: string) => {
    const m = parseMessage(raw)!;
    return q.add(client, m.command, m.params, replySpec(m.command, m.params, isChannel), "")!;
  };
  const to = (raw: string) => q.route(parseMessage(raw)!)?.entry.client ?? "";
  // A client's sync after it attaches: two WHOs of one channel, the second still unwritten
  // (behind the network's flood control) when the first's answer comes.
  const first = add("a", "WHO #c");
  q.written(first);
  const second = add("b", "WHO #c");
  assertEquals(to(":s 352 me #c u h s bob H :0 Bob"), "a");
  assertEquals(to(":s 315 me #c :End of WHO list"), "a", "not taken for the unwritten one");
  // Minutes in the queue: it does not time out before the server has seen it.
  now = 600_000;
  assertEquals(q.expired(), []);
  q.written(second);
  assertEquals(to(":s 352 me #c u h s bob H :0 Bob"), "b");
  assertEquals(to(":s 315 me #c :End of WHO list"), "b");
  assertEquals(q.size, 0);
  // Once written, it times out as any other.
  q.written(add("b", "WHO #d"));
  now += 1000;
  assertEquals(q.expired().map((e) => e.client), ["b"]);
});

Deno.test("pending replies: a sync of 100 channels waits whole (a WHO and a MODE each)", () => {
  const q = new PendingReplies<string>();
  for (let i = 0; i < 100; i++) {
    for (const raw of [`WHO #c${i}`, `MODE #c${i}`]) {
      const m = parseMessage(raw)!;
      assert(q.add("a", m.command, m.params, replySpec(m.command, m.params, isChannel)), raw);
    }
  }
  assertEquals(q.size, 200);
});

Deno.test("pending replies: a reply is never taken for a command not yet written", () => {
  const q = new PendingReplies<string>();
  const add = (client: string, raw: string) => {
    const m = parseMessage(raw)!;
    return q.add(client, m.command, m.params, replySpec(m.command, m.params, isChannel))!;
  };
  // b asked first, but its WHO still waits to be written; a's went out ahead of it.
  add("b", "WHO #c");
  q.written(add("a", "WHO #c"));
  assertEquals(q.route(parseMessage(":s 352 me #c u h s bob H :0 Bob")!)?.entry.client, "a");
  assertEquals(q.route(parseMessage(":s 315 me #c :End of WHO list")!)?.entry.client, "a");
  assertEquals(q.size, 1);
});
