/**
 * The login throttle: a stranger guessing from one address slows that address only, never the
 * owner elsewhere, and behind a reverse proxy the client is X-Forwarded-For's last hop, which a
 * client cannot forge.
 * In process, through `app.request()`.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";

Deno.test("login throttle: a stranger cannot lock the owner out of their account", async (t) => {
  const a = await startApp();
  try {
    await a.register("owner@example.com");
    const login = (password: string, addr: string, email = "owner@example.com") =>
      a.post("/api/user/login", { email, password }, { addr });
    await t.step("twelve wrong passwords from one address slow that address down", async () => {
      const statuses = [];
      for (let i = 0; i < 12; i++) {
        statuses.push((await login(`wrong ${i}`, "203.0.113.66")).status);
      }
      assertEquals(statuses.slice(0, 5), [400, 400, 400, 400, 400]);
      assert(statuses.includes(429), `statuses: ${statuses}`);
      const refused = await login("correct horse battery", "203.0.113.66");
      assertEquals(refused.status, 429);
      assert(Number(refused.headers.get("retry-after")) >= 1);
    });
    await t.step("the owner logs in from another address at once", async () => {
      const res = await login("correct horse battery", "198.51.100.7");
      assertEquals(res.status, 200);
      assertEquals(res.body.email, "owner@example.com");
    });
    await t.step("one address trying many emails runs out of its budget", async () => {
      for (let i = 0; i < 50; i++) {
        const res = await login("wrong password", "203.0.113.99", `u${i}@example.com`);
        assertEquals(res.status, 400, `attempt ${i}`);
      }
      assertEquals((await login("wrong password", "203.0.113.99", "new@example.com")).status, 429);
      assertEquals((await login("correct horse battery", "198.51.100.8")).status, 200);
    });
  } finally {
    await a.close();
  }
});

Deno.test("login throttle: behind a proxy the client is X-Forwarded-For's last hop", async () => {
  const a = await startApp({ PARLEY_REVERSE_PROXY: "1" });
  try {
    // The proxy (socket peer 127.0.0.1) appends the real address; the client forges the rest.
    const login = (email: string, xff: string) =>
      a.request("/api/user/login", {
        method: "POST",
        body: JSON.stringify({ email, password: "wrong password" }),
        headers: { "content-type": "application/json", "x-forwarded-for": xff },
      });
    for (let i = 0; i < 50; i++) {
      const res = await login(`u${i}@example.com`, `10.9.${i}.1, 192.0.2.10`);
      assertEquals(res.status, 400, `attempt ${i}`);
    }
    const forged = await login("x@example.com", "10.0.0.1, 192.0.2.66, 192.0.2.10");
    assertEquals(forged.status, 429, "a forged first hop does not make a new client");
    const framed = await login("x@example.com", "192.0.2.10, 192.0.2.11");
    assertEquals(framed.status, 400, "writing another client's address first does not throttle us");
  } finally {
    await a.close();
  }
});
