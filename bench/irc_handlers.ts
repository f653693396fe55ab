/**
 * Benchmark: what reading a line costs past the lean path, in CPU time (so it holds on a busy
 * machine), and what a connection's reader keeps, in heap: the handler table's read-time part
 * (irc/chat/inbound/: gathering replies, telling answers, finding the handler) on the channel
 * events and replies that are not chat lines; the heap of a connection's IRC client with its
 * registration and the listeners a connection gives it, and that of its gatherings and answers.
 * docs/irc.md, "A line's path", reads these figures.
 */
import process from "node:process";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { IrcClient } from "../irc/engine/client.ts";
import { Registration } from "../irc/engine/registration.ts";
import { type IrcMessage, parseMessage } from "../irc/protocol/message.ts";
import { answersOf, type AnswerState } from "../irc/chat/inbound/answers.ts";
import { Replies } from "../irc/chat/inbound/replies.ts";
import { COMMANDS } from "../irc/chat/inbound/mod.ts";

const lines = [
  ":bob!b@h PART #chan :bye",
  ":bob!b@h MODE #chan +o carol",
  ":bob!b@h TOPIC #chan :hello there",
  ":carol!c@h QUIT :gone",
  ":carol!c@h NICK dave",
  ":irc.test 353 alice = #chan :alice @bob +carol dave erin frank",
  ":irc.test 366 alice #chan :End of NAMES",
  ":bob!b@h KICK #chan erin :out",
].map((l) => parseMessage(l)!);

/** CPU µs per line of `read`, the best of a few runs after a warm-up. */
function cost(read: (m: IrcMessage) => unknown): number {
  let best = Infinity;
  for (let run = 0; run < 8; run++) {
    const start = process.cpuUsage();
    for (let r = 0; r < 20_000; r++) for (const m of lines) read(m);
    const used = process.cpuUsage(start);
    if (run >= 2) best = Math.min(best, (used.user + used.system) / (lines.length * 20_000));
  }
  return best;
}

const replies = new Replies();
const state: AnswerState = { list: [] };
const prefix = () => [{ mode: "o", symbol: "@" }];
const table = (m: IrcMessage) => {
  const gathered = replies.gather(m);
  const got = gathered ? undefined : replies.end(m);
  if (!gathered) answersOf(m, got, state, prefix);
  return gathered ? undefined : COMMANDS.get(m.command);
};
console.log(`irc_table_read_us_per_line: ${cost(table).toFixed(2)} us`);

// A full collection before and after each count, so the heap holds only what is kept.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Heap KB each of `n` made by `make`. */
function heap(make: () => unknown, n = 2_000): string {
  gc();
  const before = Deno.memoryUsage().heapUsed;
  const kept = Array.from({ length: n }, make);
  gc();
  const kb = (Deno.memoryUsage().heapUsed - before) / n / 1024;
  return kept.length ? kb.toFixed(2) : "";
}

/** A client as a connection keeps it: its registration, and the connection's eight listeners. */
function client(): unknown {
  const c = new IrcClient();
  const registration = new Registration(
    { nick: "alice", username: "alice", gecos: "Parley user" },
    { write: (l) => c.raw(l), emit: (e, ev) => c.emit(e, ev), capEnabled: () => false },
  );
  const events = ["registered", "nick in use", "nick invalid", "irc error", "sasl failed"] as const;
  for (const e of events) c.on(e, () => {});
  c.on("socket close", () => {});
  c.on("registered", () => {});
  c.on("socket close", () => {});
  return [c, registration];
}
console.log(`irc_client_kb: ${heap(client)} KB`);
console.log(
  `irc_table_state_kb: ${heap(() => ({ replies: new Replies(), answers: { list: [] } }))} KB`,
);
