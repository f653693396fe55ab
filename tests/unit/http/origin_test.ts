/**
 * The CSRF rule (http/origin.ts): which state-changing requests are refused as started by a page
 * of another origin, and by which header.
 */
import { Hono } from "hono";
import { assertEquals } from "../../support/assert.ts";
import { type Config, parseConfig } from "../../../config.ts";
import { foreignRequest } from "../../../http/origin.ts";

const config = {
  ...parseConfig({ PARLEY_HOME: "/nonexistent", PARLEY_BASE_URL: "https://chat.example/" }),
  secret: "s",
} as Config;

/** The header a POST with `headers` is refused by, or "" when it goes on. */
async function refusedBy(headers: Record<string, string>): Promise<string> {
  const app = new Hono().post("/api/x", (c) => c.text(foreignRequest(c, config)?.header ?? ""));
  const res = await app.request("http://parley.example/api/x", {
    method: "POST",
    headers: { host: "parley.example", ...headers },
  });
  return await res.text();
}

Deno.test("foreign requests: Sec-Fetch-Site other than same-origin or none is refused", async () => {
  assertEquals(await refusedBy({ "sec-fetch-site": "cross-site" }), "sec-fetch-site");
  assertEquals(await refusedBy({ "sec-fetch-site": "same-site" }), "sec-fetch-site");
  assertEquals(await refusedBy({ "sec-fetch-site": "same-origin" }), "");
  assertEquals(await refusedBy({ "sec-fetch-site": "none" }), "");
  // An allowed Sec-Fetch-Site does not excuse a foreign Origin.
  assertEquals(
    await refusedBy({ "sec-fetch-site": "same-origin", origin: "https://evil.example" }),
    "origin",
  );
});

Deno.test("foreign requests: an Origin must be the request's or the base URL's", async () => {
  assertEquals(await refusedBy({ origin: "https://parley.example" }), "", "the request's own");
  assertEquals(await refusedBy({ origin: "https://chat.example" }), "", "the base URL's");
  assertEquals(await refusedBy({ origin: "https://chat.example.evil" }), "origin");
  assertEquals(await refusedBy({ origin: "null" }), "origin", "an opaque origin is nobody's");
  // The Origin decides: a Referer of Parley's own does not rescue a foreign Origin.
  assertEquals(
    await refusedBy({ origin: "https://evil.example", referer: "https://chat.example/chat" }),
    "origin",
  );
});

Deno.test("foreign requests: without an Origin, a Referer must be of Parley's origin", async () => {
  assertEquals(await refusedBy({ referer: "https://chat.example/chat/irc" }), "");
  assertEquals(await refusedBy({ referer: "https://evil.example/chat.example" }), "referer");
  assertEquals(await refusedBy({ referer: "not a url" }), "referer");
  assertEquals(await refusedBy({}), "", "curl and scripts send none of the three");
});
