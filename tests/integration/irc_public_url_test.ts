/** URLs shown to every user carry neither a password nor a channel key. */
import { assert, assertEquals } from "../support/assert.ts";
import { adminAndUser } from "../support/api.ts";
import { startServer } from "../support/server.ts";

Deno.test("profiles and getUser's default_connection hide passwords and channel keys", async () => {
  const server = await startServer();
  const { admin, user } = await adminAndUser(server.url);
  try {
    const set = await admin.post("/api/settings", {
      default_connection: "ircs://irc.example.org:6697/%23convos%20s3cret",
    });
    assertEquals(set.status, 200);
    const me = await user.get("/api/user");
    // As Convos's client reads URLs: irc:// with tls=1.
    assertEquals(me.body.default_connection, "irc://irc.example.org:6697/%23convos?tls=1");
    const saved = await admin.post("/api/connection-profiles", {
      url: "irc://svc:Secr3t@pass@irc.example.org:6667/%23a%20key",
    });
    assertEquals(saved.status, 200);
    const listed = await user.get("/api/connection-profiles");
    const text = JSON.stringify(listed.body);
    for (const secret of ["Secr3t", "pass@", "%20key"]) assert(!text.includes(secret), text);
    assertEquals(listed.body.profiles[0].url, "irc://svc:@irc.example.org:6667/%23a");
  } finally {
    await server.close();
  }
});
