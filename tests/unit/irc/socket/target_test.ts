/** irc/socket/target.ts: the checked public address a connection goes to. */
import { assert, assertEquals } from "../../../support/assert.ts";
import { publicAddress, TransportRefusal } from "../../../../irc/socket/target.ts";

Deno.test("publicAddress checks every resolved address and returns a checked one", async () => {
  const dns = (answers: Record<string, string[]>) => (host: string) =>
    Promise.resolve(answers[host] ?? []);
  const resolve = dns({
    "irc.example.org": ["93.184.216.34"],
    "inside.example.org": ["10.0.0.5"],
    "mixed.example.org": ["93.184.216.34", "127.0.0.1"],
    "v6.example.org": ["fe80::1"],
  });
  assertEquals(await publicAddress("irc.example.org", resolve), "93.184.216.34");
  assertEquals(await publicAddress("93.184.216.34", resolve), "93.184.216.34");
  for (const host of ["inside.example.org", "mixed.example.org", "v6.example.org", "localhost"]) {
    const err = await publicAddress(host, resolve).then(() => undefined, (e) => e);
    assert(err instanceof TransportRefusal && err.permanent, host);
    assert(err.message.includes("ask an admin"), err.message);
  }
  for (const host of ["127.0.0.1", "[::1]", "192.168.0.1", "169.254.169.254", "0x7f.1"]) {
    const err = await publicAddress(host, resolve).then(() => undefined, (e) => e);
    assert(err instanceof TransportRefusal && err.permanent, host);
  }
  const missing = await publicAddress("nowhere.example.org", resolve).then(() => 0, (e) => e);
  assert(missing instanceof TransportRefusal && !missing.permanent, "a DNS failure is retried");
});
