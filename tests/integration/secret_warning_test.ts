/**
 * The daemon warns at start, in one line, when the server secret is weak (anyone who captures an
 * envelope between nodes can guess it offline), and says how to make a good one; a generated
 * secret gives no warning. The secret itself is never printed.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startServer } from "../support/server.ts";

const WARNING = "the server secret (PARLEY_SECRET) is weak";

Deno.test("daemon: one warning line at start for a weak PARLEY_SECRET", async () => {
  const weakSecret = "parley-secret-16";
  const weak = await startServer({ env: { PARLEY_SECRET: weakSecret } });
  try {
    const lines = weak.output().split("\n").filter((l) => l.includes(WARNING));
    assertEquals(lines.length, 1, weak.output());
    assertStringIncludes(lines[0], "WARN");
    assertStringIncludes(lines[0], "openssl rand -base64 32");
    assertStringIncludes(lines[0], "16 bytes");
    assert(!weak.output().includes(weakSecret), "the secret is not printed");
  } finally {
    await weak.close();
  }
  const generated = await startServer();
  try {
    assert(!generated.output().includes(WARNING), generated.output());
  } finally {
    await generated.close();
  }
});
