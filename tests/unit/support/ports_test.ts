/**
 * The tests' ports come from below the kernel's ephemeral range, so no outgoing connection can take
 * one between its probe and its server's bind, and none is given twice.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { freePort } from "../../support/ports.ts";

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
