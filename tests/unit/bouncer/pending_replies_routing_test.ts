/**
 * Where the server's replies to a client's command go: to the first waiting entry that takes
 * them, by numeric and by the name they answer; never stuck behind an entry whose answer ends
 * otherwise or never comes.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { PendingReplies, replySpec } from "../../../bouncer/pending_replies.ts";
import { parseMessage } from "../../../irc/protocol/message.ts";

const isChannel = (n: string) => n.startsWith("#");
const line = (raw: string) => parseMessage(raw)!;

function queue(now = () => 0) {
  const q = new PendingReplies<string>({ now, timeoutMs: 1000 });
  /** A client's command, written to the server at once (as with no flood control to wait for). */
  const ask = (client: string, raw: string, label?: string) => {
    const m = line(raw);
    const e = q.add(client, m.command, m.params, replySpec(m.command, m.params, isChannel), label);
    if (e) q.written(e);
    return e;
  };
  /** Who gets the reply ("" for nobody's: every client), and whether it ended its entry. */
  const to = (raw: string) => {
    const r = q.route(line(raw));
    return r ? `${r.entry.client}${r.ends ? " (end)" : ""}` : "";
  };
  return { q, ask, to };
}

Deno.test("pending replies: an error that ends a query ends it, and the next query is answered", () => {
  const { q, ask, to } = queue();
  ask("a", "MODE #nosuchchannel");
  assertEquals(to(":s 401 me #nosuchchannel :No such nick or channel name"), "a (end)");
  assertEquals(q.size, 0);
  ask("b", "WHOIS bob");
  assertEquals(to(":s 311 me bob u h * :Bob"), "b");
  assertEquals(to(":s 318 me bob :End of WHOIS list"), "b (end)");
});

Deno.test("pending replies: WHOIS's 401 is followed by its end", () => {
  const { ask, to } = queue();
  ask("a", "WHOIS nobody");
  assertEquals(to(":s 401 me nobody :No such nick"), "a");
  assertEquals(to(":s 318 me nobody :End of WHOIS list"), "a (end)");
  ask("a", "WHOWAS nobody");
  assertEquals(to(":s 406 me nobody :There was no such nickname"), "a");
  assertEquals(to(":s 369 me nobody :End of WHOWAS list"), "a (end)");
});

Deno.test("pending replies: an entry never blocks the ones behind it", () => {
  const { ask, to } = queue();
  ask("a", "WHOIS carol");
  ask("b", "MODE #x");
  ask("c", "ISON bob");
  assertEquals(to(":s 303 me :bob"), "c (end)");
  assertEquals(to(":s 324 me #x +nt"), "b (end)");
  assertEquals(to(":s 329 me #x 1700000000"), "b", "the trail after 324");
  assertEquals(to(":s 311 me carol u h * :Carol"), "a");
  // Someone else's answer (the web client's /whois of dave) is nobody's here.
  assertEquals(to(":s 311 me dave u h * :Dave"), "");
  assertEquals(to(":s 401 me erin :No such nick"), "", "an error naming nothing asked");
  assertEquals(to(":s 318 me carol :End"), "a (end)");
});

Deno.test("pending replies: Parley's own WHO of another channel is not the client's", () => {
  const { ask, to } = queue();
  ask("a", "WHO #mine");
  assertEquals(to(":s 352 me #other u h s carol H :0 Carol"), "");
  assertEquals(to(":s 315 me #other :End of WHO list"), "");
  assertEquals(to(":s 352 me #mine u h s bob H :0 Bob"), "a");
  assertEquals(to(":s 315 me #mine :End of WHO list"), "a (end)");
  ask("a", "WHO bob");
  assertEquals(to(":s 352 me #any u h s bob H :0 Bob"), "a", "a nick's WHO names any channel");
  assertEquals(to(":s 315 me bob :End of WHO list"), "a (end)");
  ask("a", "TOPIC #mine");
  assertEquals(to(":s 332 me #other :not this one"), "");
  assertEquals(to(":s 332 me #mine :the topic"), "a");
  assertEquals(to(":s 333 me #mine bob 1700000000"), "a (end)");
});

Deno.test("pending replies: a query whose answer never comes times out", () => {
  let now = 0;
  const { q, ask, to } = queue(() => now);
  ask("a", "WHOIS slow");
  now = 999;
  assertEquals(q.expired(), []);
  now = 1000;
  assertEquals(q.expired().map((e) => e.client), ["a"]);
  assertEquals(to(":s 318 me slow :End"), "");
});

Deno.test("pending replies: the timeout runs from when the command was written", () => {
  let now = 0;
  const { q, ask, to } = queue(() => now);
  const entry = ask("a", "ISON bob");
  // Held by the network's flood control longer than the timeout, then written.
  now = 5000;
  q.written(entry!);
  now = 5999;
  assertEquals(q.expired(), []);
  assertEquals(to(":s 303 me :bob"), "a (end)");
});

Deno.test("pending replies: replies push the timeout back", () => {
  let now = 0;
  const { q, ask, to } = queue(() => now);
  ask("a", "LIST");
  now = 900;
  assertEquals(to(":s 322 me #a 3 :topic"), "a");
  now = 1800;
  assertEquals(q.expired(), []);
  assertEquals(to(":s 323 me :End of LIST"), "a (end)");
});

Deno.test("pending replies: passed-through commands and their answers", () => {
  const { ask, to } = queue();
  ask("a", "MOTD");
  assertEquals(to(":s 375 me :- s message of the day"), "a");
  assertEquals(to(":s 372 me :- hi"), "a");
  assertEquals(to(":s 376 me :End of MOTD command"), "a (end)");
  ask("a", "LUSERS");
  for (const n of ["251", "254", "255", "265"]) assertEquals(to(`:s ${n} me :x`), "a");
  assertEquals(to(":s 266 me 2 2 :x"), "a (end)");
  assertEquals(to(":s 250 me :Highest connection count"), "a", "ngircd's 250 after 266");
  ask("b", "VERSION");
  assertEquals(to(":s 351 me ngircd s :x"), "b (end)");
  assertEquals(to(":s 005 me RFC2812 :are supported"), "b");
  assertEquals(to(":s 005 me CHANNELLEN=50 :are supported"), "", "the trail is right after");
  ask("a", "USERHOST bob");
  assertEquals(to(":s 302 me :bob=+u@h"), "a (end)");
  ask("a", "MONITOR L");
  assertEquals(to(":s 732 me :bob"), "a");
  assertEquals(to(":s 733 me :End of MONITOR list"), "a (end)");
  ask("a", "MONITOR + bob");
  assertEquals(to(":s 730 me :bob!u@h"), "", "a status is every client's news");
  ask("b", "KNOCK #closed :let me in");
  assertEquals(to(":s 711 me #closed :Your KNOCK has been delivered"), "b (end)");
  ask("a", "FROBNICATE x");
  assertEquals(to(":s 421 me FROBNICATE :Unknown command"), "a (end)");
  ask("b", "SETNAME :New Name");
  assertEquals(to("FAIL SETNAME INVALID_REALNAME :No"), "b (end)");
  ask("a", "NAMES #a,#b");
  assertEquals(to(":s 366 me #a :End"), "a");
  assertEquals(to(":s 366 me #b :End"), "a (end)");
});

Deno.test("pending replies: an unanswered command gives way to a query when the queue is full", () => {
  const q = new PendingReplies<string>({ max: 2 });
  const add = (raw: string) => {
    const m = line(raw);
    return q.add("a", m.command, m.params, replySpec(m.command, m.params, isChannel));
  };
  assert(add("KICK #a bob"));
  assert(add("WHOIS bob"));
  assert(add("WHOIS carol"), "the KICK's wait gave way");
  assertEquals(add("WHOIS dave"), undefined, "queries do not");
  assertEquals(q.clear().length, 2);
});

Deno.test("pending replies: a NICK's refusal is its asker's; one it got is done", () => {
  const { q, ask, to } = queue();
  ask("a", "NICK bob");
  ask("b", "NICK carol");
  // The web client's /nick dave, refused: no attached client asked.
  assertEquals(to(":s 433 me dave :Nickname already in use"), "");
  assertEquals(to(":s 433 me carol :Nickname already in use"), "b (end)");
  // bob was given (the server's NICK line): a later refusal of bob is not a's.
  q.done("NICK", "BOB");
  assertEquals(q.size, 0);
  assertEquals(to(":s 433 me bob :Nickname already in use"), "");
  ask("a", "NICK 9lives");
  // Another's refusal naming something else (a JOIN's 437, the web's /nick) is not a's.
  assertEquals(to(":s 437 me #held :Nick/channel is temporarily unavailable"), "");
  assertEquals(to(":s 432 me 9x :Erroneous nickname"), "");
  assertEquals(to(":s 432 me 9lives :Erroneous nickname"), "a (end)");
  // Given cut to the server's NICKLEN: the oldest waiting NICK is done all the same.
  ask("b", "NICK averyveryverylongnick");
  q.done("NICK", "averyvery");
  assertEquals(q.size, 0);
});

Deno.test("pending replies: operators' commands, TRACE, USERS, SUMMON answer their asker", () => {
  const { ask, to } = queue();
  ask("a", "OPER name wrong");
  ask("b", "KILL bob :out");
  assertEquals(to(":s 464 me :Invalid password"), "a (end)");
  assertEquals(to(":s 481 me :Permission denied"), "b (end)", "a refusal naming nothing");
  ask("b", "WALLOPS :hello");
  assertEquals(to(":s 723 me wallops :Insufficient oper privileges."), "b (end)");
  ask("a", "TRACE");
  assertEquals(to(":s 205 me User users bob"), "a");
  assertEquals(to(":s 262 me s ngIRCd :End of TRACE"), "a (end)");
  ask("b", "USERS");
  assertEquals(to(":s 446 me :USERS has been disabled"), "b (end)");
  ask("a", "SUMMON bob");
  assertEquals(to(":s 445 me :SUMMON has been disabled"), "a (end)");
  ask("b", "SERVLIST");
  assertEquals(to(":s 235 me * 0 :End of service listing"), "b (end)");
  // With nothing waiting, such a refusal is everyone's (the web client's /quote).
  assertEquals(to(":s 481 me :Permission denied"), "");
});

Deno.test("pending replies: NAMES and WHO of nothing named take what the server names", () => {
  const { ask, to } = queue();
  ask("a", "NAMES");
  assertEquals(to(":s 353 me = #y :@carol"), "a");
  assertEquals(to(":s 353 me = #x :@dave"), "a");
  assertEquals(to(":s 366 me * :End of NAMES list"), "a (end)");
  ask("b", "WHO");
  assertEquals(to(":s 352 me * ~dave h s dave H :0 dave"), "b");
  assertEquals(to(":s 315 me * :End of WHO list"), "b (end)");
});

Deno.test("pending replies: a later command's answer settles the earlier ones that get none", () => {
  const { q, ask, to } = queue();
  // a's KICK went through (the server's KICK line is everyone's): no numeric answers it.
  ask("a", "KICK #room bob");
  ask("b", "WHOIS carol");
  assertEquals(to(":s 318 me carol :End of WHOIS list"), "b (end)");
  assertEquals(q.size, 0, "the server answered b's later command: a's had its answer");
  // The web client's message to bob, refused: no attached client asked.
  assertEquals(to(":s 401 me bob :No such nick"), "");
  // An entry written after the one answered is not settled by it.
  ask("a", "WHOIS bob");
  ask("b", "KICK #room carol");
  assertEquals(to(":s 311 me bob u h * :Bob"), "a");
  assertEquals(to(":s 401 me carol :No such nick"), "b (end)");
  assertEquals(to(":s 318 me bob :End of WHOIS list"), "a (end)");
});

Deno.test("pending replies: AWAY is answered by 306, and back by 305", () => {
  const { q, ask, to } = queue();
  ask("a", "AWAY");
  ask("b", "AWAY :lunch");
  // Each by the numeric its AWAY asks for, whatever the order.
  assertEquals(to(":s 306 me :You have been marked as being away"), "b (end)");
  assertEquals(to(":s 305 me :You are no longer marked as being away"), "a (end)");
  assertEquals(q.size, 0);
  // Parley's own AWAY (automatic away, the web client) is nobody's here: every client is told.
  assertEquals(to(":s 306 me :You have been marked as being away"), "");
});
