/** The ZNC and soju formats the importers read: log lines, timestamps, zones, config, registry, raw lines. */
import { assertEquals, assertStringIncludes, assertThrows } from "../../support/assert.ts";
import { LocalTime, parseLogMessage, timestampFormat } from "../../../import/znc_log.ts";
import { blocks, readRegistry, readZncConf, value, values } from "../../../import/znc_conf.ts";
import { parseRawMessage, sojuNetworkUrl } from "../../../import/soju.ts";
import { type DayLine, mergedDay, zncNetworkUrl } from "../../../import/znc.ts";

Deno.test("ZNC log lines: messages, notices and actions; events and status lines are none", () => {
  assertEquals(parseLogMessage("<dave> hi: <b> there"), {
    type: "private",
    from: "dave",
    text: "hi: <b> there",
  });
  assertEquals(parseLogMessage("<dave> "), { type: "private", from: "dave", text: "" });
  assertEquals(parseLogMessage("-NickServ- you are - now - identified"), {
    type: "notice",
    from: "NickServ",
    text: "you are - now - identified",
  });
  assertEquals(parseLogMessage("* dave waves * twice"), {
    type: "action",
    from: "dave",
    text: "waves * twice",
  });
  for (
    const event of [
      "*** Joins: dave (d@h)",
      "*** dave is now known as dave_",
      "*** dave sets mode: +o erin",
      "Connected to IRC (irc.example.org +6697)",
      "Broadcast: restarting",
      "<no closing bracket",
      "<two words> x",
    ]
  ) assertEquals(parseLogMessage(event), undefined, event);
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

Deno.test("soju's raw lines: PRIVMSG, NOTICE and ACTION; other commands and CTCPs are none", () => {
  assertEquals(parseRawMessage("@time=x;msgid=y :dave!d@h PRIVMSG #c :hello there"), {
    type: "private",
    from: "dave",
    text: "hello there",
  });
  assertEquals(parseRawMessage(":dave!d@h PRIVMSG #c word"), {
    type: "private",
    from: "dave",
    text: "word",
  });
  assertEquals(parseRawMessage(":s NOTICE * :*** Looking up"), {
    type: "notice",
    from: "s",
    text: "*** Looking up",
  });
  assertEquals(parseRawMessage(":dave PRIVMSG #c :\x01ACTION waves\x01"), {
    type: "action",
    from: "dave",
    text: "waves",
  });
  assertEquals(parseRawMessage(":dave PRIVMSG #c :\x01VERSION\x01"), undefined);
  assertEquals(parseRawMessage(":dave JOIN #c"), undefined);
  assertEquals(parseRawMessage(":dave TOPIC #c :new topic"), undefined);
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
});
