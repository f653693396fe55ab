/**
 * A connection's server as its lines show it (irc/upstream_state.ts): what the bouncer's burst
 * reads, and the ISUPPORT and capabilities the engine and the chat handlers ask.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { parseMessage } from "../../../irc/protocol/message.ts";
import { UpstreamState } from "../../../irc/upstream_state.ts";

Deno.test("upstream state: channels, topics and the user's source from the server's lines", () => {
  const s = new UpstreamState();
  for (
    const line of [
      ":srv 001 alice :Welcome",
      ":srv 005 alice PREFIX=(ov)@+ CHANTYPES=# :are supported",
      ":srv 375 alice :- motd",
      ":srv 372 alice :- hello",
      ":srv 376 alice :End",
      ":alice!a@h JOIN #Parley",
      ":srv 332 alice #Parley :the topic",
      ":srv 333 alice #Parley bob 1700000000",
      ":srv 353 alice = #Parley :@alice bob",
      ":srv 366 alice #Parley :End",
      ":carol!c@h JOIN #parley",
      ":bob!b@h NICK bobby",
      ":alice!a@h MODE #parley +v bobby",
      ":carol!c@h PART #parley",
      ":alice!a@h NICK alice2",
    ]
  ) s.see(parseMessage(line)!);
  assertEquals(s.nick, "alice2");
  assertEquals(s.motd, ["- hello"]);
  const ch = s.channel("#PARLEY")!;
  assertEquals(ch.name, "#Parley");
  assertEquals([ch.topic, ch.topicBy], ["the topic", "bob"]);
  // Members are the connection's (irc/chat/presence.ts), not kept here a second time.
  assertEquals(Object.keys(ch).sort(), ["created", "modes", "name", "topic", "topicAt", "topicBy"]);
  assertEquals(s.source, "alice2!a@h");
  s.see(parseMessage(":op!o@h KICK #parley alice2 :out")!);
  assertEquals(s.channel("#parley"), undefined);
});

Deno.test("upstream state: a channel's modes, from its 324 on, follow every MODE line", () => {
  const s = new UpstreamState();
  const see = (...lines: string[]) => lines.forEach((l) => s.see(parseMessage(l)!));
  see(
    ":srv 001 alice :Welcome",
    ":srv 005 alice PREFIX=(qov)~@+ CHANMODES=beI,k,lj,imnpstz :are supported",
    ":alice!a@h JOIN #chan",
    // Before the server said what they are, a change says nothing of the rest.
    ":bob!b@h MODE #chan +m",
  );
  const ch = s.channel("#chan")!;
  assertEquals(ch.modes, "");
  see(":srv 324 alice #chan +ntk secret", ":srv 329 alice #chan 1700000000");
  assertEquals([ch.modes, ch.created], ["+ntk secret", "1700000000"]);
  // Lists and members' ranks are not the channel's modes; a parameter is taken by its mode.
  see(":bob!b@h MODE #chan +bol *!*@spam alice 25");
  assertEquals(ch.modes, "+ntkl secret 25");
  see(":bob!b@h MODE #chan -k+m-v secret alice");
  assertEquals(ch.modes, "+ntlm 25");
  see(":bob!b@h MODE #chan +l 30");
  assertEquals(ch.modes, "+ntml 30");
  // -l takes no parameter: the next mode's is still read right.
  see(":bob!b@h MODE #chan -l+k other");
  assertEquals(ch.modes, "+ntmk other");
  // A mode CHANMODES does not name: its parameter cannot be told, the modes are unknown again.
  see(":bob!b@h MODE #chan +X maybe");
  assertEquals(ch.modes, "");
  see(":srv 324 alice #chan +", ":srv 329 alice #chan notatime");
  assertEquals([ch.modes, ch.created], ["+", "1700000000"]);
  // Another channel's, or one not joined, changes nothing here.
  see(":srv 324 alice #other +s", ":bob!b@h MODE #other +i");
  assertEquals(s.channel("#other"), undefined);
  assertEquals(ch.modes, "+");
});

Deno.test("upstream state: a channel's lists, once the server gave one whole, follow MODE lines", () => {
  const s = new UpstreamState();
  const see = (...lines: string[]) => lines.forEach((l) => s.see(parseMessage(l)!));
  see(
    ":srv 001 alice :Welcome",
    ":srv 005 alice PREFIX=(ov)@+ CHANMODES=beI,k,l,imnpst :are supported",
    ":alice!a@h JOIN #chan",
    // Before the server gave the list, a change says nothing of the rest of it.
    ":bob!b@h MODE #chan +b early!*@*",
  );
  assertEquals(s.list("#chan", "b"), undefined);
  see(
    ":srv 367 alice #chan one!*@* bob!b@h 1700000000",
    ":srv 367 alice #chan two!*@* carol 1700000001",
  );
  assertEquals(s.list("#chan", "b"), undefined, "known only once the list ends");
  see(":srv 368 alice #chan :End of channel ban list", ":srv 349 alice #chan :End");
  assertEquals(s.list("#chan", "b"), [
    ["one!*@*", "bob!b@h", "1700000000"],
    ["two!*@*", "carol", "1700000001"],
  ]);
  assertEquals(s.list("#chan", "e"), [], "an end alone is an empty list");
  assertEquals(s.list("#chan", "I"), undefined);
  // Added last (a mask already there is not added twice), removed as the server folds nicks.
  see(":bob!b@h MODE #chan +bo-b three!*@* alice ONE!*@*", ":bob!b@h MODE #chan +b two!*@*");
  const now = Math.floor(Date.now() / 1000);
  const bans = s.list("#chan", "b")!;
  assertEquals(bans.map((e) => e[0]), ["two!*@*", "three!*@*"]);
  assertEquals(bans[1][1], "bob!b@h");
  assert(Math.abs(Number(bans[1][2]) - now) <= 2, `set now: ${bans[1][2]}`);
  // A change without its mask cannot be followed: that list is unknown again, the others stay.
  see(":bob!b@h MODE #chan +b");
  assertEquals(s.list("#chan", "b"), undefined);
  assertEquals(s.list("#chan", "e"), []);
  // Given again, it replaces what was known; a channel left forgets its lists.
  see(":srv 368 alice #chan :End");
  assertEquals(s.list("#chan", "b"), []);
  see(":alice!a@h PART #chan");
  see(":alice!a@h JOIN #chan");
  assertEquals(s.list("#chan", "e"), undefined);
  // A list of a channel not joined is not kept.
  see(":srv 367 alice #other x!*@*", ":srv 368 alice #other :End");
  assertEquals(s.list("#other", "b"), undefined);
});

Deno.test("upstream state: channel lists bounded against a hostile server", () => {
  const s = new UpstreamState();
  const see = (...lines: string[]) => lines.forEach((l) => s.see(parseMessage(l)!));
  see(":srv 001 alice :Welcome");
  for (let c = 0; c < 20; c++) see(`:alice!a@h JOIN #c${c}`);
  // A list longer than 500 entries is the server's to give.
  for (let i = 0; i < 501; i++) see(`:srv 367 alice #c0 m${i}!*@*`);
  see(":srv 368 alice #c0 :End");
  assertEquals(s.list("#c0", "b"), undefined);
  for (let i = 0; i < 500; i++) see(`:srv 367 alice #c0 m${i}!*@*`);
  see(":srv 368 alice #c0 :End");
  assertEquals(s.list("#c0", "b")?.length, 500);
  // One more by a MODE line: past the bound, unknown.
  see(":bob!b@h MODE #c0 +b more!*@*");
  assertEquals(s.list("#c0", "b"), undefined);
  // 5,000 entries over the connection's channels at most.
  for (let c = 0; c < 11; c++) {
    for (let i = 0; i < 500; i++) see(`:srv 367 alice #c${c} m${i}!*@*`);
    see(`:srv 368 alice #c${c} :End`);
  }
  assertEquals(s.list("#c9", "b")?.length, 500);
  assertEquals(s.list("#c10", "b"), undefined, "past the connection's bound");
  // Leaving a channel gives its room back.
  see(":alice!a@h PART #c0");
  for (let i = 0; i < 500; i++) see(`:srv 367 alice #c10 m${i}!*@*`);
  see(":srv 368 alice #c10 :End");
  assertEquals(s.list("#c10", "b")?.length, 500);
  // Lists never ended: ten are received at once at most, and an end whose entries went unseen
  // is not taken for an empty list until every list under way has ended.
  for (let c = 1; c <= 5; c++) see(`:alice!a@h PART #c${c}`);
  for (let c = 11; c <= 16; c++) see(`:srv 367 alice #c${c} x!*@*`, `:srv 346 alice #c${c} y!*@*`);
  see(":srv 368 alice #c11 :End", ":srv 368 alice #c16 :End");
  assertEquals(s.list("#c11", "b"), [["x!*@*"]]);
  assertEquals(s.list("#c16", "b"), undefined, "its entry went unseen");
  see(":srv 347 alice #c11 :End");
  for (let c = 12; c <= 15; c++) see(`:srv 368 alice #c${c} :End`, `:srv 347 alice #c${c} :End`);
  assertEquals(s.list("#c15", "I"), [["y!*@*"]]);
  see(":srv 368 alice #c17 :End");
  assertEquals(s.list("#c17", "b"), [], "nothing under way: an end alone is an empty list again");
  // The welcome of a new connection starts afresh.
  see(":srv 001 alice :Welcome", ":alice!a@h JOIN #c1", ":srv 347 alice #c1 :End");
  assertEquals(s.list("#c1", "I"), []);
});

Deno.test("upstream state: the server's capabilities from its CAP lines", () => {
  const s = new UpstreamState();
  const see = (raw: string) => s.see(parseMessage(raw)!);
  see(":srv CAP * LS * :message-tags echo-message");
  see(":srv CAP * LS :chghost");
  see(":srv CAP * ACK :message-tags chghost");
  assertEquals([...s.caps].sort(), ["chghost", "message-tags"]);
  see(":srv CAP alice DEL :chghost");
  see(":srv CAP alice NEW :echo-message");
  see(":srv CAP alice ACK :echo-message -message-tags");
  assertEquals([...s.caps].sort(), ["echo-message"]);
  see(":srv CAP * LS :message-tags");
  assertEquals([...s.caps], [], "a new negotiation starts from nothing");
});

Deno.test("upstream state: ISUPPORT read as the engine asks it, defaults before", () => {
  const s = new UpstreamState();
  const see = (raw: string) => s.see(parseMessage(raw)!);
  // Before the server says: the common five.
  assertEquals(s.casemapping, "rfc1459");
  assertEquals(s.chantypes, undefined);
  assertEquals(s.prefix.map((p) => p.mode).join(""), "qaohv");
  assertEquals([s.linelen, s.modes, s.networkName], [undefined, undefined, "Network"]);
  see(":srv 001 alice :Welcome");
  see(
    ":srv 005 alice CASEMAPPING=ascii CHANTYPES=#& PREFIX=(ohv)@%+ LINELEN=2048 MODES=6 " +
      "NETWORK=Example\\x20Net :are supported",
  );
  assertEquals(s.casemapping, "ascii");
  assertEquals(s.chantypes, ["#", "&"]);
  assertEquals(s.prefix, [
    { mode: "o", symbol: "@" },
    { mode: "h", symbol: "%" },
    { mode: "v", symbol: "+" },
  ]);
  assertEquals(s.prefixSymbols(), "@%+");
  assertEquals([s.linelen, s.modes, s.networkName], [2048, 6, "Example Net"]);
  see(":srv 004 alice srv.example ircd-1.0 iow biklmnopstv");
  assertEquals(s.myinfo, ["srv.example", "ircd-1.0", "iow", "biklmnopstv"]);
  // The tokens as the server spelled them, in its order, for the bouncer's burst.
  assertEquals(s.isupportTokens().slice(0, 3), [
    "CASEMAPPING=ascii",
    "CHANTYPES=#&",
    "PREFIX=(ohv)@%+",
  ]);
  see(":srv 005 alice MODES=4 EXTRA :are supported");
  assertEquals(s.isupportTokens().slice(-3), ["MODES=4", "NETWORK=Example\\x20Net", "EXTRA"]);
  assertEquals(s.isupportValue("MODE"), undefined, "a name is matched whole");
  assertEquals(s.isupportValue("EXTRA"), undefined, "a token without a value");
  // A later 005 changes what was read (parsed once per change, not per question).
  see(":srv 005 alice -CHANTYPES CASEMAPPING=strict-rfc1459 PREFIX= :are supported");
  assertEquals([s.casemapping, s.chantypes, s.prefix], ["strict-rfc1459", undefined, []]);
  // A new registration starts from nothing.
  see(":srv 001 alice :Welcome again");
  assertEquals([s.casemapping, s.linelen, s.networkName], ["rfc1459", undefined, "Network"]);
});

Deno.test("upstream state: capEnabled, and a fresh client negotiates from nothing", () => {
  const s = new UpstreamState();
  const see = (raw: string) => s.see(parseMessage(raw)!);
  see(":srv CAP * LS :server-time echo-message");
  see(":srv CAP * ACK :server-time echo-message");
  assert(s.capEnabled("server-time") && s.capEnabled("echo-message"));
  see(":srv 001 alice :Welcome");
  see(":alice!a@h JOIN #c");
  s.restart();
  assert(!s.capEnabled("server-time"), "a new client's capabilities are its own");
  assert(s.channel("#c"), "channels stay for a client attaching until the next welcome");
});

Deno.test("upstream state: a chat line is a quick look; the user's own gives its source", () => {
  const s = new UpstreamState();
  const see = (raw: string) => s.see(parseMessage(raw)!);
  see(":srv 001 alice :Welcome");
  see(":bob!b@h PRIVMSG #c :hello");
  see(":bob!b@h NOTICE alice :hi");
  assertEquals(s.source, "");
  see(":alice!a@cloaked PRIVMSG #c :my own, echoed");
  assertEquals(s.source, "alice!a@cloaked");
  // A nick that only begins like the user's is someone else.
  see(":alicex!x@h PRIVMSG #c :not me");
  assertEquals(s.source, "alice!a@cloaked");
});

Deno.test("upstream state: bounded against a hostile server", () => {
  const s = new UpstreamState();
  const see = (raw: string) => s.see(parseMessage(raw)!);
  see(":srv 001 alice :Welcome");
  for (let i = 0; i < 1100; i++) see(`:alice!a@h JOIN #c${i}`);
  assertEquals(s.channels.size, 1000);
  for (let i = 0; i < 30; i++) {
    const tokens = Array.from({ length: 12 }, (_, j) => `T${i}_${j}=x`).join(" ");
    see(`:srv 005 alice ${tokens} :are supported`);
  }
  assertEquals(s.isupportTokens().length, 200);
  see(":srv 375 alice :- motd");
  for (let i = 0; i < 500; i++) see(`:srv 372 alice :- line ${i}`);
  assertEquals(s.motd.length, 400);
  see(`:srv CAP * ACK :${Array.from({ length: 300 }, (_, i) => `c${i}`).join(" ")}`);
  assertEquals(s.caps.size, 100);
});
