/**
 * bouncer/caps.ts: one client's negotiation (CAP LS split into lines, REQ all or nothing and
 * bounded, a handed-over client's capabilities restored) and each row's offer, need and filter.
 * (Each row's filter against forClient: the capability table's tests below.)
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { CAPABILITIES, type CapName, Caps, OFFERED, UPSTREAM_CAPS } from "../../../bouncer/caps.ts";
import { forClient } from "../../../bouncer/filter.ts";
import { formatMessage, parseMessage } from "../../../irc/protocol/message.ts";

Deno.test("caps: LS before 302 gives names only, and no cap-notify", () => {
  const c = new Caps();
  const words = c.ls(0).flat();
  assert(words.every((w) => !w.includes("=")));
  assertEquals(c.has("cap-notify"), false);
  assertEquals(c.version, 0);
});

Deno.test("caps: LS 302 values; sasl's is the client's mechanisms", () => {
  const c = new Caps(() => "PLAIN,EXTERNAL");
  const words = c.ls(302).flat();
  assert(words.includes("sasl=PLAIN,EXTERNAL"), words.join(" "));
  assert(c.has("cap-notify"));
  // A later LS with a lower version keeps 302.
  c.ls(0);
  assertEquals(c.version, 302);
  assert(c.ls(0).flat().includes("sasl=PLAIN,EXTERNAL"));
});

Deno.test("caps: long LS lists are split, every offered capability once", () => {
  const long = "A".repeat(300);
  const c = new Caps(() => long);
  const lines = c.ls(302);
  assert(lines.length >= 2, "split");
  assertEquals(lines.flat().length, OFFERED.length);
  assertEquals(new Set(lines.flat().map((w) => w.split("=")[0])).size, OFFERED.length);
  for (const l of lines.slice(1)) assert(l.join(" ").length <= 380, "each later line fits");
});

Deno.test("caps: REQ is all or nothing, and bounded", () => {
  const c = new Caps();
  assertEquals(c.request(""), false);
  assertEquals(c.request("   "), false);
  assertEquals(c.request("batch account-tag"), false, "not offered: nothing taken");
  assertEquals(c.has("batch"), false);
  assertEquals(c.request("batch batch"), true);
  assertEquals(c.list(), ["batch"]);
  const many = Array.from({ length: OFFERED.length * 2 + 1 }, () => "batch").join(" ");
  assertEquals(c.request(many), false, "more words than the table could ever need");
  assertEquals(c.request("-batch server-time"), true);
  assertEquals(c.list(), ["server-time"]);
  assertEquals(c.request("-nonsense"), false);
});

Deno.test("caps: what only the server's lines carry follows the server, for a client told of it", () => {
  const c = new Caps();
  c.ls(302); // cap-notify is implied
  assert(c.request("extended-join away-notify server-time"));
  // A server with none of them: withdrawn, and those the client had turned off.
  const none = c.followServer(new Set(["multi-prefix"]));
  assertEquals(none.added, []);
  assertEquals(
    none.removed.sort(),
    CAPABILITIES.filter((r) => r.fromServer).map((r) => r.name).sort(),
  );
  assertEquals(c.list().sort(), ["cap-notify", "server-time"]);
  const offered = c.ls(302).flat();
  assert(!offered.includes("extended-join") && offered.includes("server-time"), offered.join(" "));
  assertEquals(c.request("away-notify"), false, "withdrawn: not offered");
  assertEquals(c.followServer(new Set(["multi-prefix"])), { removed: [], added: [] }, "said once");
  // A server that has away-notify registers: offered again, for the client to ask for.
  assertEquals(c.followServer(new Set(["away-notify"])), { removed: [], added: ["away-notify"] });
  assert(c.request("away-notify"));
  // A client not told of changes (no cap-notify) keeps what it negotiated.
  const old = new Caps();
  old.ls(0);
  assert(old.request("extended-join"));
  assertEquals(old.followServer(new Set()), { removed: [], added: [] });
  assert(old.has("extended-join"));
});

Deno.test("caps: a handed-over client's capabilities come back, unknown ones left out", () => {
  const c = new Caps();
  c.restore(["batch", "echo-message", "account-tag", "bogus"], 302);
  assertEquals(c.list().sort(), ["batch", "echo-message"]);
  assertEquals(c.version, 302);
});

Deno.test("caps: each row is offered or asked of the server, and says what lacking it means", () => {
  const names = CAPABILITIES.map((c) => c.name);
  assertEquals(new Set(names).size, names.length, "one row per capability");
  for (const row of CAPABILITIES) {
    assertEquals(
      new Caps().request(row.name),
      row.offered,
      `${row.name}: REQ takes what is offered`,
    );
    assert(row.offered || row.upstream, `${row.name}: a row not offered is asked of the server`);
    assert(row.without, row.name);
  }
  // Parley's own (history, batches, echo) need nothing of the server.
  for (const own of ["server-time", "batch", "echo-message", "draft/chathistory"]) {
    assertEquals(CAPABILITIES.find((c) => c.name === own)!.upstream, null, own);
  }
  assertEquals(new Set(UPSTREAM_CAPS).size, UPSTREAM_CAPS.length, "each asked once");
  assert(UPSTREAM_CAPS.includes("account-tag") && UPSTREAM_CAPS.includes("userhost-in-names"));
});

Deno.test("bouncer caps: LS 302 gives values; REQ is all or nothing", () => {
  const plain = new Caps();
  const words = plain.ls(0).flat();
  assert(words.includes("sasl") && !words.some((w) => w.includes("=")));
  const c = new Caps();
  const ls = c.ls(302).flat();
  assert(ls.includes("sasl=PLAIN"));
  for (
    const cap of ["draft/chathistory", "draft/read-marker", "echo-message", "labeled-response"]
  ) {
    assert(ls.includes(cap), cap);
  }
  assert(c.has("cap-notify"), "302 implies cap-notify");
  const lines = new Caps().ls(302);
  assert(lines.every((l) => l.join(" ").length <= 380), "each CAP LS line fits");
  assertEquals(lines.flat().length, OFFERED.length, "every capability, once, over the lines");
  assertEquals(c.request("server-time bogus"), false);
  assert(!c.has("server-time"));
  assertEquals(c.request("server-time batch"), true);
  assert(c.has("server-time") && c.has("batch"));
  assertEquals(c.request("-batch"), true);
  assert(!c.has("batch"));
});

// The capability table: each row's filter is what a client without it gets, and only that; a new
// capability is one row, and this test covers it by iterating the table.

const ctx = { prefixes: "@+", myNick: "me" };

/** A client that negotiated every offered capability but `missing`. */
function allBut(missing?: CapName): Caps {
  const c = new Caps();
  c.ls(302);
  const words = OFFERED.map((o) => o.name).filter((n) => n !== missing);
  assert(c.request(words.join(" ")));
  return c;
}

/**
 * A line each row changes, and what the row makes of it for a client without it (undefined: none).
 * Every row that filters must have one: a new row without an example fails the test.
 */
const EXAMPLES: Partial<Record<CapName, [string, string | undefined]>> = {
  "server-time": [
    "@time=t;msgid=m :n!u@h PRIVMSG #c :hi there",
    "@msgid=m :n!u@h PRIVMSG #c :hi there",
  ],
  "message-tags": [
    "@time=t;msgid=m;label=l;+typing=active :n!u@h PRIVMSG #c :hi there",
    "@time=t;label=l :n!u@h PRIVMSG #c :hi there",
  ],
  batch: ["@batch=b;time=t :n!u@h PRIVMSG #c :hi there", "@time=t :n!u@h PRIVMSG #c :hi there"],
  "labeled-response": [
    "@label=l;time=t :s 311 me n u h * :Real Name",
    "@time=t :s 311 me n u h * :Real Name",
  ],
  "draft/read-marker": ["MARKREAD #c *", undefined],
  "away-notify": [":n!u@h AWAY :gone", undefined],
  "account-notify": [":n!u@h ACCOUNT acct", undefined],
  "account-tag": [
    "@account=acct;time=t :n!u@h PRIVMSG #c :hi there",
    "@time=t :n!u@h PRIVMSG #c :hi there",
  ],
  "extended-join": [":n!u@h JOIN #c acct :Real Name", ":n!u@h JOIN #c"],
  "multi-prefix": [":s 353 me = #c :@+a +b c", ":s 353 me = #c :@a +b c"],
  "userhost-in-names": [":s 353 me = #c :@a!u@h b!v@i", ":s 353 me = #c :@a b"],
  setname: [":n!u@h SETNAME :New Name", undefined],
  "invite-notify": [":n!u@h INVITE other #c", undefined],
  chghost: [":n!u@h CHGHOST u2 h2", undefined],
};

Deno.test("bouncer caps table: every row filters what its client lacks, and only that", () => {
  const full = allBut();
  for (const row of CAPABILITIES) {
    const filters = !!(row.drops?.length || row.tags?.length || row.rewrite);
    const example = EXAMPLES[row.name];
    assertEquals(!!example, filters, `${row.name}: an example iff the row filters`);
    assert(row.without.length > 0, `${row.name} says what a client without it gets`);
    if (!example) continue;
    const [raw, expected] = example;
    const m = parseMessage(raw)!;
    const without = row.offered ? allBut(row.name) : full;
    assertEquals(forClient(without, m, ctx), expected, `${row.name} missing: ${raw}`);
    if (row.offered) {
      // The same line to a client that has every capability passes unchanged.
      const same = formatMessage({
        command: m.command,
        params: m.params,
        prefix: m.prefix,
        tags: m.tags,
      });
      assertEquals(forClient(full, m, ctx), same, `${row.name} present: ${raw}`);
    }
  }
});

Deno.test("bouncer caps table: CAP LS lists the offered rows, values with 302; REQ knows only them", () => {
  const ls = new Caps().ls(302).flat();
  assertEquals(ls.map((w) => w.split("=")[0]), OFFERED.map((o) => o.name));
  for (const row of OFFERED) {
    if (row.value) assert(ls.includes(`${row.name}=${row.value}`), row.name);
  }
  for (const row of CAPABILITIES.filter((c) => !c.offered)) {
    assertEquals(new Caps().request(row.name), false, `${row.name} is not offered`);
  }
});

Deno.test("bouncer caps table: what needs the server is asked of it", () => {
  for (const row of CAPABILITIES) {
    if (row.upstream) assert(UPSTREAM_CAPS.includes(row.upstream), row.name);
  }
  for (
    const cap of [
      "chghost",
      "setname",
      "away-notify",
      "account-notify",
      "extended-join",
      "message-tags",
      "invite-notify",
      "multi-prefix",
    ]
  ) assert(UPSTREAM_CAPS.includes(cap), cap);
});
