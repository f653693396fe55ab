/** The importers' line reader: lines as the bytes arrive, with a bound on one line. */
import { assert, assertEquals } from "../../support/assert.ts";
import { type Line, readLines } from "../../../import/lines.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

/** A stream of these chunks, then its end. */
function chunks(...parts: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  return ReadableStream.from(parts.map((p) => (typeof p === "string" ? bytes(p) : p)));
}

async function all(stream: ReadableStream<Uint8Array>, max?: number): Promise<Line[]> {
  const out: Line[] = [];
  for await (const line of readLines(stream, max)) out.push(line);
  return out;
}

Deno.test("import lines: split across chunks, CRLF, a last line without its end", async () => {
  assertEquals(await all(chunks("one\ntw", "o\r\nthr", "ee é", bytes("\n").slice(), "four")), [
    { text: "one" },
    { text: "two" },
    { text: "three é" },
    { text: "four" },
  ]);
  // A character cut between two chunks is decoded whole.
  const e = bytes("é\n");
  assertEquals(await all(chunks(e.subarray(0, 1), e.subarray(1))), [{ text: "é" }]);
});

Deno.test("import lines: the first lines come before the stream ends", async () => {
  // An endless source: reading it whole would never return (or run out of memory).
  let pulled = 0;
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      controller.enqueue(bytes("2025-01-01T00:00:00 <a> hello\n".repeat(100)));
    },
  });
  const got: string[] = [];
  for await (const line of readLines(endless)) {
    if ("text" in line) got.push(line.text);
    if (got.length === 250) break;
  }
  assertEquals(got.length, 250);
  assert(pulled <= 5, `pulled ${pulled} chunks for 250 lines`);
});

Deno.test("import lines: a line past the limit is skipped, not kept, and the next one is read", async () => {
  const huge = new Uint8Array(1024 * 1024).fill(0x41);
  const lines = await all(chunks("a\n", huge, huge, "tail\nb\n", huge), 64 * 1024);
  assertEquals(lines, [{ text: "a" }, { tooLong: true }, { text: "b" }, { tooLong: true }]);
});
