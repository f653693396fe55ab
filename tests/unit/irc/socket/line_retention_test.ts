/**
 * What a kept piece of an IRC line holds: its line, not the read it came in. A server writes a
 * short line the daemon keeps (a JOIN: the nick) in the same read as ~256 KB of lines it drops;
 * the transport runs in a process of its own whose collector the test can run, and the nicks kept
 * from 600 such reads must not hold the reads (they held ~150 MB before each line was parsed from
 * a copy of its own).
 */
import { assert } from "../../../support/assert.ts";
import { runScript } from "../../../support/child_script.ts";

const TRANSPORT = new URL("../../../../irc/socket/transport.ts", import.meta.url).href;
const MESSAGE = new URL("../../../../irc/protocol/message.ts", import.meta.url).href;
const READS = 600;

const SCRIPT = `
import { LineTransport } from ${JSON.stringify(TRANSPORT)};
import { nickOf } from ${JSON.stringify(MESSAGE)};
const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
const port = listener.addr.port;
const encoder = new TextEncoder();
(async () => {
  const conn = await listener.accept();
  const filler = ("FOO " + "x".repeat(8000) + "\\r\\n").repeat(32);
  const write = async (text) => {
    const b = encoder.encode(text);
    for (let at = 0; at < b.length;) at += await conn.write(b.subarray(at));
  };
  for (let i = 0; i < ${READS}; i++) await write(":nick" + i + "_with_a_long_tail!u@h JOIN #c\\r\\n" + filler);
  await write("DONE\\r\\n");
})();
const kept = [];
const t = new LineTransport({ host: "127.0.0.1", port }, {
  lines: {
    take(m) {
      if (m.command === "JOIN") kept.push(nickOf(m.prefix));
      if (m.command === "DONE") {
        globalThis.gc();
        console.log(JSON.stringify({ kept: kept.length, heapMb: Deno.memoryUsage().heapUsed / 1e6 }));
        Deno.exit(0);
      }
      return true;
    },
    room: () => undefined,
  },
});
t.connect();
`;

Deno.test("a string kept from a line holds its line, not the read it came in", async () => {
  const out = await runScript(SCRIPT, ["--expose-gc"]);
  assert(out.code === 0, out.stderr);
  const { kept, heapMb } = JSON.parse(out.stdout);
  assert(kept === READS, `every JOIN kept: ${kept}`);
  // The nicks themselves are ~25 KB; a process this size has a few MB of heap.
  assert(heapMb < 40, `${heapMb.toFixed(0)} MB of heap for ${kept} short nicks`);
});
