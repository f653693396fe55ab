/**
 * The capability table: each row's filter is what a client without it gets, and only that; a new
 * capability is one row, and this test covers it by iterating the table.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { CAPABILITIES, type CapName, Caps, OFFERED, UPSTREAM_CAPS } from "../../bouncer/caps.ts";
import { forClient } from "../../bouncer/filter.ts";
import { formatMessage, parseMessage } from "../../irc/protocol/message.ts";

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
