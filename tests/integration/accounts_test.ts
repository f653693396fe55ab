import { assert, assertEquals } from "../support/assert.ts";
import { adminAndUser, ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";

Deno.test("the first user becomes admin and a second needs an invite", async () => {
  const server = await startServer();
  try {
    const admin = new ApiClient(server.url);
    const first = await admin.register("Admin@Example.com");
    assertEquals(first.email, "admin@example.com");
    assertEquals(first.roles, ["admin"]);
    assert(typeof first.csrf === "string" && first.csrf.length > 20);

    const stranger = new ApiClient(server.url);
    const refused = await stranger.post("/api/user/register", {
      email: "x@example.com",
      password: "long enough pw",
    });
    assertEquals(refused.status, 400);
    assertEquals(refused.body.errors[0].path, "/body/token");
  } finally {
    await server.close();
  }
});

Deno.test("an invited user registers as an ordinary user", async () => {
  const server = await startServer();
  try {
    const { user } = await adminAndUser(server.url);
    const me = await user.get("/api/user");
    assertEquals(me.status, 200);
    assertEquals(me.body.email, "user@example.com");
    assertEquals(me.body.roles, []);
  } finally {
    await server.close();
  }
});
