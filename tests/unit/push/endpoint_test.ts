/**
 * Which push endpoints Parley may reach (push/endpoint.ts): a URL the browser names, so public
 * addresses only (every address of the name), unless the admin allows private ones. A resolver of
 * the test's own stands for DNS.
 */
import { assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { endpointPolicy, endpointProblem } from "../../../push/endpoint.ts";

const DNS: Record<string, string[]> = {
  "push.example": ["93.184.216.34"],
  "mixed.example": ["93.184.216.34", "10.0.0.5"],
  "inside.example": ["192.168.1.10"],
};
const resolve = (host: string) => Promise.resolve(DNS[host] ?? []);

Deno.test("push endpoints: public addresses only, each address of the name checked", async () => {
  const policy = { ...endpointPolicy(false), resolve };
  const problem = (url: string) => endpointProblem(new URL(url), policy);
  assertEquals(await problem("https://push.example/send/abc"), undefined);
  for (
    const url of [
      "https://mixed.example/x",
      "https://inside.example/x",
      "https://127.0.0.1/x",
      "https://[::1]/x",
    ]
  ) {
    assertStringIncludes(
      (await problem(url)) ?? "delivered",
      "endpoint must be a push service on a public address",
      url,
    );
  }
  assertEquals(
    await problem("https://nowhere.example/x"),
    "endpoint's host could not be resolved.",
  );
});

Deno.test("push endpoints: an admin may allow private addresses (a push service on the LAN)", async () => {
  const policy = { ...endpointPolicy(true), resolve };
  assertEquals(await endpointProblem(new URL("https://inside.example/x"), policy), undefined);
  assertEquals(await endpointProblem(new URL("http://127.0.0.1:8080/x"), policy), undefined);
  assertEquals(
    await endpointProblem(new URL("https://nowhere.example/x"), policy),
    "endpoint's host could not be resolved.",
  );
});
