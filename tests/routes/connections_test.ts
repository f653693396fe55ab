/**
 * Connections in process: the display name a user picks (issue #16: two connections to one host
 * are not both "localhost"), its default and its validation. Answers are checked against
 * the API document by the test client.
 */
import { assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";

Deno.test("connections: a display name of the user's choosing", async (t) => {
  const a = await startApp({ PARLEY_IRC_ALLOW_PRIVATE: "1" });
  const admin = a.client();
  try {
    await admin.register("admin@example.com");
    const create = (body: Record<string, unknown>) =>
      admin.post("/api/connections", { wanted_state: "disconnected", ...body });

    await t.step("without a name, the host's short name", async () => {
      const res = await create({ url: "irc://127.0.0.1:6667?nick=a" });
      assertEquals(res.status, 200, JSON.stringify(res.body));
      assertEquals(res.body.name, "localhost");
    });

    await t.step("a second connection to the same host takes the name given", async () => {
      const res = await create({ url: "irc://127.0.0.1:6668?nick=b", name: " Work bouncer " });
      assertEquals(res.status, 200, JSON.stringify(res.body));
      assertEquals(res.body.name, "Work bouncer");
      const list = await admin.get("/api/connections");
      assertEquals(
        list.body.connections.map((c: { name: string }) => c.name).sort(),
        ["Work bouncer", "localhost"],
      );
    });

    await t.step("updating the name keeps the rest", async () => {
      const res = await admin.post(`/api/connection/irc-localhost`, { name: "Home" });
      assertEquals(res.status, 200, JSON.stringify(res.body));
      assertEquals(res.body.name, "Home");
      assertEquals(res.body.url, "irc://127.0.0.1:6667?nick=a");
    });

    await t.step("a bad name is a 400 at /body/name", async () => {
      for (const name of ["", "   ", "x".repeat(65), "a\u0007b"]) {
        const res = await create({ url: "irc://127.0.0.1:6669?nick=c", name });
        assertEquals(res.status, 400, JSON.stringify(name));
        assertEquals(res.body.errors[0].path, "/body/name");
      }
    });
  } finally {
    await a.close();
  }
});
