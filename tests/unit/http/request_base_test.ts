/**
 * A reverse proxy set up for Convos sends `X-Request-Base`; Parley takes its base URL from
 * PARLEY_BASE_URL only, so the first header that names another base is logged, once, with the
 * value to set (http/request_base.ts).
 */
import { Hono } from "hono";
import { assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { type Config, parseConfig } from "../../../config.ts";
import { noteRequestBase } from "../../../http/request_base.ts";

const configOf = (env: Record<string, string>) =>
  ({ ...parseConfig({ PARLEY_HOME: "/nonexistent", ...env }), secret: "s" }) as Config;

/** The warnings logged while `headers` are sent, one request each, to an app on `config`. */
async function warnings(config: Config, headers: (string | undefined)[]): Promise<string[]> {
  const app = new Hono().use("*", noteRequestBase(config)).get("/", (c) => c.text("ok"));
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  try {
    for (const h of headers) {
      const res = await app.request("http://127.0.0.1/", {
        headers: h === undefined ? {} : { "x-request-base": h },
      });
      assertEquals(await res.text(), "ok");
    }
  } finally {
    console.error = original;
  }
  return lines;
}

const BEHIND_PROXY = {
  PARLEY_LISTEN: "http://127.0.0.1:3000",
  PARLEY_BASE_URL: "https://example.org/parley/",
  PARLEY_REVERSE_PROXY: "1",
};

Deno.test("request base: another base than PARLEY_BASE_URL is logged once, with the fix", async () => {
  const lines = await warnings(configOf(BEHIND_PROXY), [
    undefined,
    "https://example.org/parley", // the same base, without its final slash
    "not a url",
    "https://example.org/convos",
    "https://example.org/other",
  ]);
  assertEquals(lines.length, 1, lines.join("\n"));
  assertStringIncludes(lines[0], "X-Request-Base is not PARLEY_BASE_URL");
  assertStringIncludes(lines[0], "x_request_base=https://example.org/convos");
  assertStringIncludes(lines[0], "base_url=https://example.org/parley");
});

Deno.test("request base: without a reverse proxy the header is anyone's, and not heeded", async () => {
  const { PARLEY_REVERSE_PROXY: _, ...direct } = BEHIND_PROXY;
  assertEquals(await warnings(configOf(direct), ["https://example.org/convos"]), []);
});
