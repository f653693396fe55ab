import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { EMBEDDED } from "../../scripts/compile.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

// `deno compile` embeds only EMBEDDED; if the daemon works while allowed to read nothing else
// of the source tree, the compiled binary will find everything it needs.
Deno.test("the daemon reads only the folders the compiled binary embeds", async () => {
  const home = await Deno.makeTempDir({ prefix: "parley-perm-" });
  const denoDir = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;
  const readable = [home, denoDir, ...EMBEDDED.map((d) => ROOT + d)];
  const server = await startServer({
    home,
    permissions: [
      `--allow-read=${readable.join(",")}`,
      `--allow-write=${home}`,
      "--allow-net",
      "--allow-env",
      "--allow-ffi",
      "--allow-sys",
    ],
  });
  try {
    const c = new ApiClient(server.url);
    const me = await c.register("admin@example.com");
    assertEquals(me.roles, ["admin"]);
    assertEquals((await c.get("/api/settings")).status, 200);
    assertEquals((await c.get("/api")).body.swagger, "2.0");
    // The web client's page, bundle and dictionaries come from the embedded folders too.
    assertEquals((await c.get("/chat")).status, 200);
    assertEquals((await c.get("/dist/app.js")).status, 200);
    assertEquals((await c.get("/api/i18n/de")).status, 200);
    // The search indexer's worker module loads too: it starts with the first stored message, here
    // the notice of a connection trying an address where nothing listens (the socket thread's
    // module loads with it).
    const created = await c.post("/api/connections", {
      url: "irc://127.0.0.1:1?nick=perm",
      wanted_state: "connected",
    });
    assertEquals(created.status, 200);
    const deadline = Date.now() + 10_000;
    while (!server.output().includes("search index open") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert(server.output().includes("search index open"), server.output());
    assert(!server.output().includes("search indexer failed"), server.output());
  } finally {
    await server.close();
  }
});
