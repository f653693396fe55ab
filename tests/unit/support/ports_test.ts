/**
 * The tests' ports come from below the kernel's ephemeral range, so no outgoing connection can take
 * one between its probe and its server's bind, and none is given twice.
 */
import { assert, assertEquals, assertRejects } from "../../support/assert.ts";
import { freePort, nextPort } from "../../support/ports.ts";

Deno.test("freePort: below the ephemeral range, bindable, never twice", () => {
  const [low] = Deno.readTextFileSync("/proc/sys/net/ipv4/ip_local_port_range").trim().split(/\s+/)
    .map(Number);
  const ports = Array.from({ length: 50 }, () => freePort());
  assertEquals(new Set(ports).size, ports.length);
  for (const port of ports) {
    assert(port >= 10_000 && port < low, `${port} below ${low}`);
    Deno.listen({ hostname: "127.0.0.1", port }).close();
  }
});

Deno.test("freePort: never a port fetch and browsers refuse to reach", async () => {
  // 10080 is drawn first: it is passed over for the next one drawn.
  const draws = [10080, 10080, 10081, 10082, 10083, 10084];
  const port = nextPort(() => draws.shift() ?? 10085);
  assert(port !== 10080, `${port}`);
  // Why it matters: a server there is out of the test's reach.
  const server = Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, () => new Response());
  try {
    assertEquals((await fetch(`http://127.0.0.1:${port}/`)).status, 200);
  } finally {
    await server.shutdown();
  }
  const refused = await assertRejects(() => fetch("http://127.0.0.1:10080/"));
  assert(refused.message.includes("blocked"), refused.message);
});
