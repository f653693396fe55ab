/**
 * Benchmark: reading the head of hostile pages (tests/support/hostile_pages.ts), each cut to the
 * 256 KB that a preview reads, in 64 KB pieces as a socket delivers them. Prints, for the worst
 * page, the median of 20 rounds of the whole parse and of its slowest piece: the longest the
 * event loop waits for a parse.
 */
import { HOSTILE_PAGES } from "../tests/support/hostile_pages.ts";
import { EMBED_LIMITS } from "../embed/embed.ts";
import { PageReader } from "../embed/page_reader.ts";

const ROUNDS = 20;
const PIECE = 64 * 1024;
const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1];
let page = { name: "", ms: 0 };
let piece = { name: "", ms: 0 };
for (const [name, html] of Object.entries(HOSTILE_PAGES)) {
  const bytes = new TextEncoder().encode(html).subarray(0, EMBED_LIMITS.headBytes);
  const wholes: number[] = [];
  const pieces: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const reader = new PageReader("text/html");
    const started = performance.now();
    let slowest = 0;
    for (let at = 0; at < bytes.length; at += PIECE) {
      const t = performance.now();
      const done = reader.write(bytes.subarray(at, at + PIECE));
      slowest = Math.max(slowest, performance.now() - t);
      if (done) break;
    }
    reader.end();
    wholes.push(performance.now() - started);
    pieces.push(slowest);
  }
  if (median(wholes) > page.ms) page = { name, ms: median(wholes) };
  if (median(pieces) > piece.ms) piece = { name, ms: median(pieces) };
}
console.error(`# slowest page: ${page.name}; slowest piece: ${piece.name}`);
console.log(`embed_parse_hostile_ms: ${page.ms.toFixed(1)} ms`);
console.log(`embed_parse_piece_ms: ${piece.ms.toFixed(1)} ms`);
