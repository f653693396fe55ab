/** Member lists (static/app/members.ts), plain connection errors and the connection form's prefill. */
import { assert, assertEquals } from "../support/assert.ts";
import {
  filterMembers,
  joined,
  left,
  type Member,
  moded,
  parsePrefix,
  prefixOf,
  renamed,
  sortMembers,
} from "../../static/app/members.ts";
import { plainReason } from "../../static/app/conn_error.ts";
import { EMPTY_FIELDS, nickFromEmail, prefill, validPort } from "../../static/app/conn_url.ts";

const nicks = (l: Member[]) => sortMembers(l).map((m) => prefixOf(m) + m.nick).join(" ");

Deno.test("members: operators, then voiced, then the rest, each by nick", () => {
  const list: Member[] = [
    { nick: "zed", modes: [] },
    { nick: "Amy", modes: ["v"] },
    { nick: "bob", modes: ["o"] },
    { nick: "al", modes: [] },
    { nick: "root", modes: ["v", "q"] },
  ];
  assertEquals(nicks(list), "~root @bob +Amy al zed");
});

Deno.test("members: ranked and signed by the server's own PREFIX", () => {
  const p = parsePrefix("(Yov)!@+");
  assertEquals(p, { modes: "Yov", signs: "!@+" });
  const list: Member[] = [
    { nick: "amy", modes: ["v"] },
    { nick: "bob", modes: ["o"] },
    { nick: "cid", modes: ["Y"] },
    { nick: "dee", modes: ["q"] },
  ];
  const shown = (l: Member[]) => sortMembers(l, p).map((m) => prefixOf(m, p) + m.nick).join(" ");
  // q is not this server's: dee has no rank here, and Y (unknown to the usual list) is first.
  assertEquals(shown(list), "!cid @bob +amy dee");
  // A MODE with the server's own letter takes its parameter and ranks the member.
  assertEquals(shown(moded(list, "+Y-o amy bob", p)), "!amy !cid bob dee");
  // An absent or odd PREFIX is the usual one.
  assertEquals(parsePrefix(undefined), parsePrefix("(qaohv)~&@%+"));
  assertEquals(parsePrefix("(ov)@"), parsePrefix(undefined));
});

Deno.test("members: join, part, nick and mode changes keep the list current", () => {
  let l: Member[] = [{ nick: "bob", modes: ["o"] }, { nick: "carol", modes: [] }];
  l = joined(l, "dave");
  l = joined(l, "DAVE"); // twice is once
  assertEquals(nicks(l), "@bob carol dave");
  l = moded(l, "+v-o carol bob");
  assertEquals(nicks(l), "+carol bob dave");
  // Parameters of other modes (a key, a ban mask, a limit) are skipped, not taken for nicks.
  l = moded(l, "+kol secret dave 10");
  assertEquals(nicks(l), "@dave +carol bob");
  l = moded(l, "-lb *!*@x");
  assertEquals(nicks(l), "@dave +carol bob");
  l = renamed(l, "Carol", "carla");
  assertEquals(nicks(l), "@dave +carla bob");
  l = left(l, "DAVE");
  assertEquals(nicks(l), "+carla bob");
  assertEquals(filterMembers(sortMembers(l), "CAR").map((m) => m.nick), ["carla"]);
});

Deno.test("connection errors: known reasons in plain words, others as they are", () => {
  assertEquals(
    plainReason("connect ECONNREFUSED 127.0.0.1:6667"),
    "Connection refused: nothing listens on that port.",
  );
  assertEquals(
    plainReason("Client network socket disconnected before secure TLS connection was established"),
    "TLS handshake failed: is this a plain-text port?",
  );
  assertEquals(
    plainReason("getaddrinfo ENOTFOUND irc.nowhere.test", "irc.nowhere.test"),
    "Unknown host: irc.nowhere.test",
  );
  // Parley's own look-up before it connects (irc/socket/target.ts).
  assertEquals(
    plainReason("Could not resolve irc.nowhere.test.", "irc.nowhere.test"),
    "Unknown host: irc.nowhere.test",
  );
  assertEquals(plainReason("Password incorrect"), "The server refused the password.");
  assertEquals(plainReason("Closing link: too many clones"), "Closing link: too many clones");
  assertEquals(plainReason(undefined), "");
});

Deno.test("connection form: port checked alone, nick from the email, profile prefill", () => {
  assert(validPort("") && validPort("6697") && validPort("1") && validPort("65535"));
  assert(!validPort("0") && !validPort("65536") && !validPort("66a") && !validPort("-1"));
  assertEquals(nickFromEmail("erin.k+irc@example.com"), "erinkirc");
  assertEquals(nickFromEmail("42@example.com"), "u42");
  const f = prefill(
    { ...EMPTY_FIELDS, host: "typed.example" },
    "irc://irc.libera.chat:6697?tls=1",
    "ann@x.y",
  );
  assertEquals(f.host, "typed.example", "what the user typed wins");
  assertEquals(f.port, "6697");
  assertEquals(f.nick, "ann");
});
