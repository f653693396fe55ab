/** lib/log.ts: logfmt quoting, JSON lines, an error as one field, journald priorities. */
import { fstatSync } from "node:fs";
import { assert, assertEquals } from "../../support/assert.ts";
import {
  formatLine,
  log,
  logfmtValue,
  setJournalPrefix,
  setLogFormat,
  setLogLevel,
  stderrIsJournal,
} from "../../../lib/log.ts";

const TIME = new Date("2026-01-02T03:04:05.678Z");

/** Splits a logfmt field list back into pairs, as a log shipper would. */
function parseFields(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /(\w+)=(?:"((?:[^"\\]|\\.)*)"|(\S*))/g;
  for (const m of text.matchAll(re)) {
    out[m[1]] = m[2] !== undefined ? JSON.parse(`"${m[2]}"`) : m[3];
  }
  return out;
}

/** Runs `fn` with console.log and console.error captured. */
function capture(fn: () => void): { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const [log0, error0] = [console.log, console.error];
  console.log = (line: string) => void out.push(line);
  console.error = (line: string) => void err.push(line);
  try {
    fn();
  } finally {
    console.log = log0;
    console.error = error0;
  }
  return { out, err };
}

Deno.test("logfmt: bare values stay bare; spaces, quotes, = and control characters are quoted", () => {
  assertEquals(logfmtValue("irc-localhost"), "irc-localhost");
  assertEquals(logfmtValue("http://127.0.0.1:3000/"), "http://127.0.0.1:3000/");
  assertEquals(logfmtValue(""), '""');
  assertEquals(logfmtValue("Connection lost."), '"Connection lost."');
  assertEquals(logfmtValue('say "hi"'), '"say \\"hi\\""');
  assertEquals(logfmtValue("a=b"), '"a=b"');
  assertEquals(logfmtValue("back\\slash"), '"back\\\\slash"');
  assertEquals(logfmtValue("two\nlines\ttab\x01"), '"two\\nlines\\ttab\\u0001"');
});

Deno.test("logfmt: a line splits back into its fields, an error's stack is one field", () => {
  const err = new Error("boom");
  const line = formatLine(
    "warn",
    "irc connect failed",
    {
      connection: "irc-libera",
      reason: 'closed by "peer" a=b',
      retry_ms: 1500,
      error: err,
      skipped: undefined,
    },
    "logfmt",
    TIME,
  );
  assertEquals(line.split("\n").length, 1, line);
  assert(line.startsWith("2026-01-02T03:04:05.678Z WARN irc connect failed "), line);
  const fields = parseFields(line.slice(line.indexOf(" connection=")));
  assertEquals(fields.connection, "irc-libera");
  assertEquals(fields.reason, 'closed by "peer" a=b');
  assertEquals(fields.retry_ms, "1500");
  assertEquals(fields.error, err.stack);
  assert(fields.error.split("\n").length > 2, "the whole stack, frames and all");
  assert(!("skipped" in fields), "an undefined field is left out");
});

Deno.test("json: one object per line with time, level, msg and the fields", () => {
  const err = new TypeError("bad");
  const line = formatLine(
    "error",
    "request failed",
    {
      id: "abc",
      status: 500,
      nested: { a: [1] },
      error: err,
    },
    "json",
    TIME,
  );
  assertEquals(line.split("\n").length, 1);
  assertEquals(JSON.parse(line), {
    time: "2026-01-02T03:04:05.678Z",
    level: "error",
    msg: "request failed",
    id: "abc",
    status: 500,
    nested: { a: [1] },
    error: err.stack,
  });
  // A value JSON cannot hold still gives a line.
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assertEquals(JSON.parse(formatLine("info", "x", { n: 1n, cyclic }, "json", TIME)).n, "1");
});

Deno.test("the logger: format and journal priorities as set, warnings and errors on stderr", () => {
  try {
    setLogLevel("debug");
    setLogFormat("json");
    setJournalPrefix(true);
    const { out, err } = capture(() => {
      log.debug("d");
      log.info("i", { k: "v w" });
      log.warn("w");
      log.error("e");
    });
    assertEquals(out.map((l) => l.slice(0, 3)), ["<7>", "<6>"]);
    assertEquals(err.map((l) => l.slice(0, 3)), ["<4>", "<3>"]);
    assertEquals(JSON.parse(out[1].slice(3)).k, "v w");
    setJournalPrefix(false);
    setLogFormat("logfmt");
    const plain = capture(() => log.info("i", { k: "v w" }));
    assert(/^\d{4}-\S+ INFO i k="v w"$/.test(plain.out[0]), plain.out[0]);
  } finally {
    setLogLevel("info");
    setLogFormat("logfmt");
    setJournalPrefix(false);
  }
});

Deno.test("JOURNAL_STREAM counts only while it names this process's stderr", () => {
  const stat = fstatSync(2);
  assert(stderrIsJournal(`${stat.dev}:${stat.ino}`), "stderr's own device and inode");
  assertEquals(stderrIsJournal(`${stat.dev}:${stat.ino + 1}`), false);
  assertEquals(stderrIsJournal(undefined), false);
  assertEquals(stderrIsJournal("garbage"), false);
});
