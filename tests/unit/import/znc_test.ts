/** The ZNC and soju formats the importers read: log lines, timestamps, zones, config, registry, raw lines. */
import { assertEquals, assertStringIncludes, assertThrows } from "../../support/assert.ts";
import { LocalTime, parseLogLine, timestampFormat } from "../../../import/znc_log.ts";
import { blocks, readRegistry, readZncConf, value, values } from "../../../import/znc_conf.ts";
import { parseStoredLine, sojuNetworkUrl } from "../../../import/soju.ts";
import { type DayLine, mergedDay, zncNetworkUrl } from "../../../import/znc.ts";

Deno.test("ZNC log lines: messages, notices and actions; status lines are none", () => {
  assertEquals(parseLogLine("<dave> hi: <b> there"), {
    type: "private",
    from: "dave",
    text: "hi: <b> there",
  });
  assertEquals(parseLogLine("<dave> "), { type: "private", from: "dave", text: "" });
  assertEquals(parseLogLine("-NickServ- you are - now - identified"), {
    type: "notice",
    from: "NickServ",
    text: "you are - now - identified",
  });
  assertEquals(parseLogLine("* dave waves * twice"), {
    type: "action",
    from: "dave",
    text: "waves * twice",
  });
  for (
    const event of [
      "Connected to IRC (irc.example.org +6697)",
      "Broadcast: restarting",
      "<no closing bracket",
      "<two words> x",
    ]
  ) assertEquals(parseLogLine(event), undefined, event);
});

Deno.test("ZNC log lines: channel events as Parley keeps them (sender, fields)", () => {
  const event = (line: string) => {
    const l = parseLogLine(line);
    return l && [l.type, l.from, l.text, l.fields && JSON.parse(l.fields)];
  };
  assertEquals(event("*** Joins: dave (~d@h.example)"), ["join", "dave", "", {}]);
  // ZNC writes "(@)" when it knows neither ident nor host.
  assertEquals(event("*** Joins: dave (@)"), ["join", "dave", "", {}]);
  assertEquals(event("*** Parts: dave (d@h) (see you (soon))"), [
    "part",
    "dave",
    "",
    { message: "see you (soon)" },
  ]);
  // An empty reason is none, as Parley keeps a live part without one.
  assertEquals(event("*** Parts: dave (d@h) ()"), ["part", "dave", "", {}]);
  assertEquals(event("*** Quits: dave (d@h) (Quit: (gone) :))"), [
    "quit",
    "dave",
    "",
    { message: "Quit: (gone) :)" },
  ]);
  assertEquals(event("*** Quits: dave (d@h) ()"), ["quit", "dave", "", {}]);
  assertEquals(event("*** erin was kicked by dave (out (now))"), [
    "kick",
    "dave",
    "",
    { nick: "erin", message: "out (now)" },
  ]);
  assertEquals(event("*** erin was kicked by dave ()"), ["kick", "dave", "", { nick: "erin" }]);
  assertEquals(event("*** dave is now known as dave_"), [
    "nick_change",
    "dave",
    "",
    { new_nick: "dave_" },
  ]);
  assertEquals(event("*** dave changes topic to 'it's 'here' now'"), [
    "topic",
    "dave",
    "",
    { topic: "it's 'here' now" },
  ]);
  assertEquals(event("*** dave changes topic to ''"), ["topic", "dave", "", { topic: "" }]);
  assertEquals(event("*** dave sets mode: +ov erin erin"), [
    "mode",
    "dave",
    "",
    { mode: "+ov erin erin" },
  ]);
  // ZNC writes "MODES ARGS": a mode without arguments ends in a space.
  assertEquals(event("*** irc.example.org sets mode: +nt "), [
    "mode",
    "irc.example.org",
    "",
    { mode: "+nt" },
  ]);
  // Reasons and topics are bounded like a live event's, nicks like a sender.
  const long = parseLogLine(
    `*** ${"n".repeat(5000)} was kicked by ${"k".repeat(500)} (${"r".repeat(9000)})`,
  );
  assertEquals(long?.from.length, 100);
  const kept = JSON.parse(long!.fields!);
  assertEquals([kept.nick.length, kept.message.length], [100, 1000]);
  // Never between the halves of a character written with two UTF-16 units.
  const emoji = parseLogLine(`*** Quits: dave (d@h) (a${"😀".repeat(600)})`);
  assertEquals(JSON.parse(emoji!.fields!).message, `a${"😀".repeat(499)}`);
  for (
    const line of [
      // The modes ZNC writes on joining a channel (its MODE query's answer): no change.
      "*** Server sets mode: +nt ",
      "*** dave sets mode: ",
      "*** Joins: dave",
      "*** Joins: dave (d@h) (a reason)",
      "*** Joins:  (d@h)",
      "*** Parts: dave d@h (bye)",
      "*** erin was kicked by dave",
      "*** dave is now known as",
      "*** dave is now known as two words",
      "*** dave changes topic to no quotes",
      "*** dave does something else",
      "*** ",
    ]
  ) assertEquals(parseLogLine(line), undefined, line);
});

Deno.test("ZNC timestamps: the default and -timestamp formats", () => {
  const dflt = timestampFormat();
  assertEquals(dflt.read("[01:02:03] <a> b"), { seconds: 3723, rest: "<a> b" });
  assertEquals(dflt.read("[1:02:03] <a> b"), undefined);
  assertEquals(dflt.read("[aa:02:03] <a> b"), undefined);
  const full = timestampFormat("%Y-%m-%d %H:%M:%S");
  assertEquals(full.read("2024-02-29 23:59:58 <a> b"), {
    seconds: 86398,
    date: [2024, 2, 29],
    rest: "<a> b",
  });
  assertEquals(timestampFormat("(%T)").read("(10:00:00) * a b")?.seconds, 36000);
  assertStringIncludes(assertThrows(() => timestampFormat("%s")).message, "%s");
  assertStringIncludes(assertThrows(() => timestampFormat("[%S]")).message, "no hours");
});

Deno.test("local times: zones, a day without change, and both changes of the clocks", () => {
  const berlin = new LocalTime("Europe/Berlin");
  const day = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d);
  assertEquals(
    new Date(berlin.toUtc(day(2025, 1, 15), 12 * 3600)).toISOString(),
    "2025-01-15T11:00:00.000Z",
  );
  assertEquals(
    new Date(berlin.toUtc(day(2025, 7, 15), 12 * 3600)).toISOString(),
    "2025-07-15T10:00:00.000Z",
  );
  // Spring: 02:00 becomes 03:00; 01:59 is winter time, 03:00 summer time.
  assertEquals(
    new Date(berlin.toUtc(day(2025, 3, 30), 1 * 3600 + 59 * 60)).toISOString(),
    "2025-03-30T00:59:00.000Z",
  );
  assertEquals(
    new Date(berlin.toUtc(day(2025, 3, 30), 3 * 3600)).toISOString(),
    "2025-03-30T01:00:00.000Z",
  );
  // Autumn: 02:30 happens twice; after a line at the second 02:10, it is the second 02:30.
  const first = berlin.toUtc(day(2025, 10, 26), 2 * 3600 + 30 * 60);
  assertEquals(new Date(first).toISOString(), "2025-10-26T00:30:00.000Z");
  const second = berlin.toUtc(day(2025, 10, 26), 2 * 3600 + 10 * 60, first);
  assertEquals(new Date(second).toISOString(), "2025-10-26T01:10:00.000Z");
  const chatham = new LocalTime("Pacific/Chatham"); // +13:45 in January
  assertEquals(
    new Date(chatham.toUtc(day(2025, 1, 2), 0)).toISOString(),
    "2025-01-01T10:15:00.000Z",
  );
  assertStringIncludes(
    assertThrows(() => new LocalTime("Mars/Olympus")).message,
    "unknown time zone",
  );
});

Deno.test("znc.conf: blocks, repeated values, comments; registry values decoded", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/znc.conf`,
      `// a comment
# another
/* a block
   of comments */
Version = 1.8.2
LoadModule = webadmin
LoadModule = log -sanitize
<User alice>
\tRealName =  two spaces kept but one
\t<Network libera>
\t\tServer = irc.libera.chat +6697
\t\tServer = irc.eu.libera.chat +6697
\t\t<Chan #a>
\t\t</Chan>
\t</Network>
</User>
`,
    );
    const conf = await readZncConf(`${dir}/znc.conf`);
    assertEquals(values(conf, "loadmodule"), ["webadmin", "log -sanitize"]);
    const [[name, alice]] = blocks(conf, "User");
    assertEquals(name, "alice");
    assertEquals(value(alice, "RealName"), " two spaces kept but one");
    const [[, libera]] = blocks(alice, "network");
    assertEquals(values(libera, "Server").length, 2);
    assertEquals(blocks(libera, "Chan").map(([c]) => c), ["#a"]);

    await Deno.writeTextFile(`${dir}/bad.conf`, "<User a>\nPass = secret-not-shown\n");
    const err = await readZncConf(`${dir}/bad.conf`).catch((e) => e as Error);
    assertStringIncludes(String(err), "<user> is not closed");

    await Deno.writeTextFile(
      `${dir}/.registry`,
      "username alice%2d;acct\npassword p%20;w%c3;%a9;\n",
    );
    const nv = await readRegistry(`${dir}/.registry`);
    assertEquals(nv.get("username"), "alice-acct");
    assertEquals(nv.get("password"), "p wé");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("network URLs from ZNC and soju", () => {
  const who = { nick: "alice", ident: "alice", realname: "" };
  assertEquals(
    zncNetworkUrl("irc.example.org +6697 pw", who, { trustAllCerts: false }),
    "ircs://:pw@irc.example.org:6697?nick=alice",
  );
  assertEquals(
    zncNetworkUrl("irc.example.org", who, { trustAllCerts: false }),
    "irc://irc.example.org:6667?nick=alice",
  );
  const u = { id: 1, username: "bob", admin: false, nick: "", realname: "" };
  const n = {
    id: 1,
    user: 1,
    name: "",
    addr: "irc.example.org",
    nick: "",
    username: "",
    realname: "",
    pass: "",
    connectCommands: [],
    saslMechanism: "",
    saslPlainUsername: "",
    saslPlainPassword: "",
    enabled: true,
  };
  assertEquals(sojuNetworkUrl(u, n), "ircs://irc.example.org?nick=bob");
  assertEquals(
    sojuNetworkUrl(u, { ...n, addr: "irc+insecure://irc.example.org:6668" }),
    "irc://irc.example.org:6668?nick=bob",
  );
  assertEquals(sojuNetworkUrl(u, { ...n, addr: "unix:///run/irc.sock" }), undefined);
});

Deno.test("soju's raw lines: PRIVMSG, NOTICE and ACTION; other CTCPs are none", () => {
  assertEquals(parseStoredLine("@time=x;msgid=y :dave!d@h PRIVMSG #c :hello there"), {
    type: "private",
    from: "dave",
    text: "hello there",
  });
  assertEquals(parseStoredLine(":dave!d@h PRIVMSG #c word"), {
    type: "private",
    from: "dave",
    text: "word",
  });
  assertEquals(parseStoredLine(":s NOTICE * :*** Looking up"), {
    type: "notice",
    from: "s",
    text: "*** Looking up",
  });
  assertEquals(parseStoredLine(":dave PRIVMSG #c :\x01ACTION waves\x01"), {
    type: "action",
    from: "dave",
    text: "waves",
  });
  assertEquals(parseStoredLine(":dave PRIVMSG #c :\x01VERSION\x01"), undefined);
});

Deno.test("soju's raw lines: channel events as Parley keeps them; user modes are none", () => {
  const event = (raw: string) => {
    const l = parseStoredLine(raw);
    return l && [l.type, l.from, l.text, l.fields && JSON.parse(l.fields)];
  };
  assertEquals(event("@time=x :dave!d@h JOIN #c"), ["join", "dave", "", {}]);
  assertEquals(event(":dave!d@h PART #c :see you (soon)"), [
    "part",
    "dave",
    "",
    { message: "see you (soon)" },
  ]);
  assertEquals(event(":dave!d@h PART #c"), ["part", "dave", "", {}]);
  assertEquals(event(":dave!d@h KICK #c erin :out"), [
    "kick",
    "dave",
    "",
    { nick: "erin", message: "out" },
  ]);
  assertEquals(event(":dave!d@h KICK #c erin"), ["kick", "dave", "", { nick: "erin" }]);
  assertEquals(event(":dave!d@h QUIT :Quit: bye"), ["quit", "dave", "", { message: "Quit: bye" }]);
  assertEquals(event(":dave!d@h QUIT"), ["quit", "dave", "", {}]);
  assertEquals(event(":dave!d@h NICK dave_"), ["nick_change", "dave", "", { new_nick: "dave_" }]);
  assertEquals(event(":dave!d@h TOPIC #c :new topic"), ["topic", "dave", "", {
    topic: "new topic",
  }]);
  assertEquals(event(":dave!d@h TOPIC #c :"), ["topic", "dave", "", { topic: "" }]);
  assertEquals(event(":dave!d@h MODE #c +ov erin erin"), [
    "mode",
    "dave",
    "",
    { mode: "+ov erin erin" },
  ]);
  assertEquals(event(":irc.example.org MODE #c +nt"), [
    "mode",
    "irc.example.org",
    "",
    { mode: "+nt" },
  ]);
  for (
    const raw of [
      ":alice MODE alice :+i",
      ":dave MODE #c",
      ":dave KICK #c",
      ":dave NICK",
      "JOIN #c",
      ":dave JOIN alice",
      ":dave INVITE alice #c",
      ":dave!d@h PRIVMSG",
    ]
  ) assertEquals(parseStoredLine(raw), undefined, raw);
});

Deno.test("a line two log files have comes once, though they stamped it a second apart", async () => {
  const day = Date.UTC(2026, 10, 29);
  const at = (seconds: number, text: string): DayLine => ({
    day,
    seconds,
    type: "private",
    from: "dave",
    text,
  });
  async function* file(lines: DayLine[]) {
    for (const l of lines) yield l;
  }
  const merged = async (a: DayLine[], b: DayLine[]) => {
    const out: string[] = [];
    for await (const l of mergedDay([file(a), file(b)])) out.push(`${l.seconds} ${l.text}`);
    return out;
  };
  // The user module wrote it at :59, the global one (-sanitize) at :00 of the next minute.
  assertEquals(
    await merged(
      [at(59, "\x02a private word\x02"), at(70, "later")],
      [at(60, "a private word"), at(70, "later")],
    ),
    ["59 \x02a private word\x02", "70 later"],
  );
  // The same words said twice, a second apart, in both files: twice.
  assertEquals(
    await merged([at(10, "ok"), at(11, "ok")], [at(11, "ok"), at(12, "ok")]),
    ["10 ok", "11 ok"],
  );
  // Two seconds apart is two lines.
  assertEquals(await merged([at(10, "ok")], [at(12, "ok")]), ["10 ok", "12 ok"]);
  // Events too: a topic with its formatting in one file and -sanitize'd in the other comes once,
  // formatted; two joins of one nick are two lines unless both files have each.
  const event = (seconds: number, line: string): DayLine => ({
    day,
    seconds,
    ...parseLogLine(line)!,
  });
  const events: string[] = [];
  for await (
    const l of mergedDay([
      file([
        event(5, "*** Joins: erin (e@h)"),
        event(6, "*** dave changes topic to '\x02bold\x02 topic'"),
        event(9, "*** Joins: erin (e@h)"),
      ]),
      file([
        event(5, "*** Joins: erin (e@h)"),
        event(7, "*** dave changes topic to 'bold topic'"),
      ]),
    ])
  ) events.push(`${l.seconds} ${l.type} ${l.from} ${l.fields}`);
  assertEquals(events, [
    "5 join erin {}",
    '6 topic dave {"topic":"\\u0002bold\\u0002 topic"}',
    "9 join erin {}",
  ]);
});
