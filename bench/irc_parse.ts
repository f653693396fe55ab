/**
 * Benchmark: reading IRC lines on the main thread, in CPU time (so it holds on a busy machine):
 * irc/protocol/message.ts's parseMessage, the one parse every upstream line gets, on a burst's
 * chat lines, joins and actions.
 */
import process from "node:process";
import { parseMessage } from "../irc/protocol/message.ts";

const lines: string[] = [];
for (let i = 0; i < 1000; i++) {
  const time = `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}.000Z`;
  lines.push(
    `@time=${time};msgid=m${i} :nick${i}!user${i}@host.example.net PRIVMSG #flood :message ${i} of a burst`,
  );
  if (i % 10 === 0) lines.push(`:nick${i}!u@h JOIN #flood`);
  if (i % 20 === 0) lines.push(`:nick${i}!u@h PRIVMSG #flood :\x01ACTION waves ${i}\x01`);
}

/** Lines read per CPU second, the best of a few runs after a warm-up. */
function rate(read: (line: string) => unknown): number {
  let best = 0;
  for (let run = 0; run < 12; run++) {
    const start = process.cpuUsage();
    for (let r = 0; r < 200; r++) for (const l of lines) read(l);
    const used = process.cpuUsage(start);
    if (run >= 2) best = Math.max(best, lines.length * 200 / ((used.user + used.system) / 1e6));
  }
  return Math.round(best);
}

console.log(`irc_parse_message_lines_per_cpu_s: ${rate(parseMessage)} lines/s`);
