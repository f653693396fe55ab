/**
 * Run by pg_writer_test.ts in a process of its own (a writer that spins holds its event loop, and
 * the test's with it): appends one row of conversation A among many of conversation B, a batch
 * at a time, and says `stored` once all are committed. The test holds A's row locked, so the
 * batch holding A's row waits in its lane while the other lane writes on.
 * Arguments: the database URL, the user id, A, B, and the number of B's rows.
 */
import { openPgMessageStore } from "../../store/pg/messages.ts";
import { BATCH } from "../../store/pg/writer.ts";

const [url, user, a, b, count] = Deno.args;
const messages = await openPgMessageStore(url);
const line = (conversation: number, i: number) =>
  messages.append({
    conversation,
    userId: Number(user),
    from: "nick",
    type: "join",
    text: `line ${i}`,
    ts: 1_000_000_000_000 + i * 1000,
  });
const appends: Promise<unknown>[] = [];
for (let i = 0; i < Number(count); i++) {
  if (i === BATCH) appends.push(line(Number(a), i));
  appends.push(line(Number(b), i));
  // A batch at a time, as lines come from IRC: the free lane is done with each before the next.
  if (i % BATCH === BATCH - 1) await new Promise((r) => setTimeout(r, 30));
}
await Promise.all(appends);
await messages.close();
console.log("stored");
