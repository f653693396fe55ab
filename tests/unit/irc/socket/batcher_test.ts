/** irc/socket/batcher.ts: a burst's reads go to the main thread as few large messages, in order. */
import { assert, assertEquals } from "../../../support/assert.ts";
import { ReadBatcher } from "../../../../irc/socket/batcher.ts";
import { ManualClock } from "../../../support/manual_clock.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (chunks: Uint8Array[]) => chunks.map((c) => new TextDecoder().decode(c)).join("");
const line = (i: number) => `:n!u@h PRIVMSG #c :line ${i}\r\n`;

Deno.test("ReadBatcher: live traffic goes read by read, at once", () => {
  const sent: Uint8Array[] = [];
  const b = new ReadBatcher((c) => sent.push(c), { windowMs: 60_000, liveBytes: 4096 });
  // A hundred lines in one window: under its share, so none of them waits.
  for (let i = 0; i < 100; i++) b.push(bytes(line(i)));
  assertEquals(sent.length, 100);
  b.flush();
  assertEquals(sent.length, 100, "nothing was waiting");
});

Deno.test("ReadBatcher: past a window's share, reads go as one message at its end, in order", () => {
  const clock = new ManualClock();
  const sent: Uint8Array[] = [];
  const b = new ReadBatcher((c) => sent.push(c), { windowMs: 30, liveBytes: 300, clock });
  const lines = Array.from({ length: 200 }, (_, i) => line(i));
  for (const l of lines) b.push(bytes(l));
  const atOnce = sent.length;
  assert(atOnce > 0 && atOnce < 15, `the window's share went at once (${atOnce})`);
  clock.advance(29);
  assertEquals(sent.length, atOnce, "the rest waits for the window's end");
  clock.advance(1);
  assertEquals(sent.length, atOnce + 1, "the rest went together after the window");
  assertEquals(text(sent), lines.join(""));
});

Deno.test("ReadBatcher: a large batch goes without waiting; flush sends the rest", () => {
  const sent: Uint8Array[] = [];
  const b = new ReadBatcher((c) => sent.push(c), {
    windowMs: 60_000,
    liveBytes: 10,
    maxBytes: 1000,
  });
  b.push(new Uint8Array(10));
  for (let i = 0; i < 10; i++) b.push(new Uint8Array(100).fill(i));
  assertEquals(sent.map((c) => c.length), [10, 1000]);
  b.push(bytes("tail"));
  b.flush(); // as before an error or the close is told
  assertEquals(sent.length, 3);
  assertEquals(text(sent.slice(2)), "tail");
  assert(sent[1][0] === 0 && sent[1][999] === 9, "the parts joined in order");
});
