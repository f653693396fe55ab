/**
 * bouncer/filter.ts: what one client gets of a line, by the capabilities it negotiated: commands
 * it lacks dropped, tags it lacks stripped (server tags before client-only ones), rewrites made,
 * and a line the writer refuses dropped rather than sent broken.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { type CapName, Caps } from "../../../bouncer/caps.ts";
import { forClient } from "../../../bouncer/filter.ts";
import { type IrcMessage, parseMessage } from "../../../irc/protocol/message.ts";

const ctx = { prefixes: "~@%+", myNick: "Me" };

function caps(...names: CapName[]): Caps {
  const c = new Caps();
  if (names.length) c.request(names.join(" "));
  return c;
}

const line = (raw: string) => parseMessage(raw)!;

Deno.test("filter: the server's tags come before the client-only ones", () => {
  const m = line("@+draft/reply=x;time=t;+typing=active;msgid=m :n!u@h TAGMSG #c");
  assertEquals(
    forClient(caps("message-tags", "server-time"), m, ctx),
    "@time=t;msgid=m;+draft/reply=x;+typing=active :n!u@h TAGMSG #c",
  );
  // Without message-tags, no TAGMSG at all.
  assertEquals(forClient(caps("server-time"), m, ctx), undefined);
});

Deno.test("filter: a tag no row names needs message-tags", () => {
  const m = line("@time=t;example.com/x=1;label=l :n!u@h PRIVMSG #c :hi there");
  assertEquals(forClient(caps("server-time"), m, ctx), "@time=t :n!u@h PRIVMSG #c :hi there");
  assertEquals(
    forClient(caps("server-time", "message-tags"), m, ctx),
    "@time=t;example.com/x=1 :n!u@h PRIVMSG #c :hi there",
  );
  assertEquals(
    forClient(caps("labeled-response"), m, ctx),
    "@label=l :n!u@h PRIVMSG #c :hi there",
    "label is its own row's",
  );
});

Deno.test("filter: batches unwrapped for a client without batch", () => {
  assertEquals(forClient(caps(), line("BATCH +b chathistory #c"), ctx), undefined);
  assertEquals(forClient(caps(), line("BATCH -b"), ctx), undefined);
  assertEquals(forClient(caps("batch"), line("BATCH -b"), ctx), "BATCH -b");
  assertEquals(
    forClient(caps(), line("@batch=b :n PRIVMSG #c :x y"), ctx),
    ":n PRIVMSG #c :x y",
  );
});

Deno.test("filter: multi-prefix keeps the strongest of WHO's flags and NAMES' prefixes", () => {
  const who = line(":s 352 me #c u h s bob H*~@+ :0 Bob");
  assertEquals(forClient(caps(), who, ctx), ":s 352 me #c u h s bob H*~ :0 Bob");
  assertEquals(forClient(caps("multi-prefix"), who, ctx), ":s 352 me #c u h s bob H*~@+ :0 Bob");
  const gone = line(":s 352 me #c u h s bob G@ :0 Bob");
  assertEquals(
    forClient(caps(), gone, ctx),
    ":s 352 me #c u h s bob G@ :0 Bob",
    "one prefix stays",
  );
  const names = line(":s 353 me = #c :~@%+a @+b c %d");
  assertEquals(forClient(caps(), names, ctx), ":s 353 me = #c :~a @b c %d");
  // NAMES with hosts (userhost-in-names, Parley's own) lose them whatever the client took.
  assertEquals(
    forClient(caps("multi-prefix"), line(":s 353 me = #c :@+a!u@h b!v@i"), ctx),
    ":s 353 me = #c :@+a b",
  );
});

Deno.test("filter: INVITE of the user passes in any case; of others only with invite-notify", () => {
  assertEquals(
    forClient(caps(), line(":n!u@h INVITE me #c"), ctx),
    ":n!u@h INVITE me #c",
    "the nick in another case",
  );
  assertEquals(forClient(caps(), line(":n!u@h INVITE bob #c"), ctx), undefined);
  assertEquals(
    forClient(caps("invite-notify"), line(":n!u@h INVITE bob #c"), ctx),
    ":n!u@h INVITE bob #c",
  );
});

Deno.test("filter: extended-join's fields only for a client that took it", () => {
  const join = line(":n!u@h JOIN #c acct :Real Name");
  assertEquals(forClient(caps(), join, ctx), ":n!u@h JOIN #c");
  assertEquals(forClient(caps("extended-join"), join, ctx), ":n!u@h JOIN #c acct :Real Name");
  assertEquals(forClient(caps(), line(":n!u@h JOIN #c"), ctx), ":n!u@h JOIN #c");
});

Deno.test("filter: a line the writer refuses is not passed on", () => {
  const broken: IrcMessage = {
    tags: new Map(),
    prefix: "n!u@h",
    command: "PRIVMSG",
    params: ["#c", "a\r\nQUIT :injected"],
  };
  assertEquals(forClient(caps(), broken, ctx), undefined);
  const space: IrcMessage = {
    tags: new Map(),
    prefix: "",
    command: "PRIVMSG",
    params: ["# c", "x"],
  };
  assertEquals(forClient(caps(), space, ctx), undefined);
});

Deno.test("bouncer filter: each client gets what it negotiated", () => {
  const none = new Caps();
  const all = new Caps();
  all.request("server-time message-tags extended-join multi-prefix away-notify batch");
  const opts = { prefixes: "@+", myNick: "me" };
  const join = parseMessage("@time=t;msgid=m :n!u@h JOIN #c acct :Real Name")!;
  assertEquals(forClient(none, join, opts), ":n!u@h JOIN #c");
  assertEquals(forClient(all, join, opts), "@time=t;msgid=m :n!u@h JOIN #c acct :Real Name");
  const timeOnly = new Caps();
  timeOnly.request("server-time");
  assertEquals(forClient(timeOnly, join, opts), "@time=t :n!u@h JOIN #c");
  const away = parseMessage(":n!u@h AWAY :gone")!;
  assertEquals(forClient(none, away, opts), undefined);
  assert(forClient(all, away, opts));
  for (const cmd of [":n!u@h CHGHOST u2 h2", ":n!u@h SETNAME :x", ":n!u@h ACCOUNT acct"]) {
    assertEquals(forClient(none, parseMessage(cmd)!, opts), undefined, cmd);
  }
  const names = parseMessage(":s 353 me = #c :@+a +b c")!;
  assertEquals(forClient(none, names, opts), ":s 353 me = #c :@a +b c");
  assertEquals(forClient(all, names, opts), ":s 353 me = #c :@+a +b c");
  const invite = parseMessage(":n!u@h INVITE other #c")!;
  assertEquals(forClient(none, invite, opts), undefined);
  assertEquals(forClient(none, parseMessage(":n!u@h INVITE me #c")!, opts), ":n!u@h INVITE me #c");
});
