// deno-lint-ignore-file no-explicit-any -- answers are read field by field
/**
 * The first run's choice of what new users start with: the default connection with the admin's
 * network and channels, or none (`new_user_connection: false`).
 */
import { assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";

Deno.test("first run: new users get the chosen default connection, or none", async (t) => {
  const a = await startApp({
    PARLEY_NEW_USER_CONNECTION: "1",
    PARLEY_DEFAULT_CONNECTION: "irc://127.0.0.1:1/%23parley",
  });
  try {
    const admin = a.client();
    await admin.register("admin@example.com");
    const invite = async (email: string) => {
      const params = new URL((await admin.post(`/api/user/${email}/invite`)).body.url)
        .searchParams;
      const user = a.client();
      await user.register(email, "correct horse battery", {
        exp: params.get("exp")!,
        token: params.get("token")!,
      });
      const { connections, conversations } = (await user.get(
        "/api/user?connections=true&conversations=true",
      )).body;
      return Object.assign(connections as any[], {
        channels: (conversations as any[]).map((c) => c.conversation_id).sort(),
      });
    };

    await t.step("on by default, with the configured connection", async () => {
      assertEquals((await admin.get("/api/settings")).body.new_user_connection, true);
      const list = await invite("one@example.com");
      assertEquals(list.length, 1);
      assertEquals(new URL(list[0].url).pathname, "/%23parley");
    });

    await t.step("another network and channels", async () => {
      const res = await admin.post("/api/settings", {
        default_connection: "irc://127.0.0.2:1/%23lobby,%23help?tls=0",
      });
      assertEquals(res.status, 200);
      const list = await invite("two@example.com");
      assertEquals(list.length, 1);
      assertEquals(new URL(list[0].url).host, "127.0.0.2:1");
      // The user's URL names the first channel; both are joined.
      assertEquals(new URL(list[0].url).pathname, "/%23lobby");
      assertEquals(list.channels, ["#help", "#lobby"]);
    });

    await t.step("none: a new user starts without a connection", async () => {
      const res = await admin.post("/api/settings", { new_user_connection: false });
      assertEquals(res.body.new_user_connection, false);
      assertEquals([...await invite("three@example.com")], []);
    });

    await t.step("a wrong type is a 400 at its pointer", async () => {
      const res = await admin.post("/api/settings", { new_user_connection: "no" });
      assertEquals(res.status, 400);
      assertEquals(res.body.errors[0].path, "/body/new_user_connection");
    });
  } finally {
    await a.close();
  }
});
