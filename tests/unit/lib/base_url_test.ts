import { assertEquals } from "../../support/assert.ts";
import { underBaseUrl } from "../../../lib/base_url.ts";

Deno.test("underBaseUrl: a path under the base, with or without its final slash", () => {
  for (const base of ["https://example.org/parley", "https://example.org/parley/"]) {
    assertEquals(underBaseUrl(new URL(base), "login").href, "https://example.org/parley/login");
    assertEquals(
      underBaseUrl(new URL(base), "api/files/1/a%2Fb.txt").pathname,
      "/parley/api/files/1/a%2Fb.txt",
    );
  }
  // At the host's root (a URL's href always has the root's slash).
  assertEquals(
    underBaseUrl(new URL("http://127.0.0.1:3000"), "register").href,
    "http://127.0.0.1:3000/register",
  );
});
