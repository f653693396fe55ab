/**
 * Message retention as admins set it (`/api/settings`) and users see it (`/api/user`), and
 * PARLEY_MESSAGE_RETENTION overriding both.
 */
import { assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";

Deno.test("retention setting: validated, stored, shown to users", async (t) => {
  const a = await startApp();
  try {
    const admin = a.client();
    await admin.register("admin@example.com");

    await t.step("off by default", async () => {
      const s = (await admin.get("/api/settings")).body;
      assertEquals([s.message_retention, s.message_retention_locked], ["", false]);
      assertEquals((await admin.get("/api/user")).body.message_retention_days, undefined);
    });

    await t.step("a duration is stored and shown to users in days", async () => {
      const res = await admin.post("/api/settings", { message_retention: "12w" });
      assertEquals(res.status, 200);
      assertEquals(res.body.message_retention, "12w");
      assertEquals((await admin.get("/api/user")).body.message_retention_days, 84);
    });

    await t.step("anything else is a 400 at its pointer, and nothing changes", async () => {
      for (const bad of ["forever", "30", "-1d", "1000y", "2m", 365]) {
        const res = await admin.post("/api/settings", { message_retention: bad });
        assertEquals(res.status, 400, `${bad}`);
        assertEquals(res.body.errors[0].path, "/body/message_retention");
      }
      assertEquals((await admin.get("/api/settings")).body.message_retention, "12w");
    });

    await t.step("0 keeps everything again", async () => {
      await admin.post("/api/settings", { message_retention: "0" });
      assertEquals((await admin.get("/api/user")).body.message_retention_days, undefined);
    });
  } finally {
    await a.close();
  }
});

Deno.test("retention setting: PARLEY_MESSAGE_RETENTION wins and is shown as set", async () => {
  const a = await startApp({ PARLEY_MESSAGE_RETENTION: "1y" });
  try {
    const admin = a.client();
    await admin.register("admin@example.com");
    const s = (await admin.get("/api/settings")).body;
    assertEquals([s.message_retention, s.message_retention_locked], ["365d", true]);
    assertEquals((await admin.get("/api/user")).body.message_retention_days, 365);
    // Saving the screen as it is (the variable's value) is fine; another value is refused.
    assertEquals((await admin.post("/api/settings", { ...s, disk_usage: undefined })).status, 200);
    const res = await admin.post("/api/settings", { message_retention: "30d" });
    assertEquals(res.status, 400);
    assertEquals(res.body.errors[0].path, "/body/message_retention");
    assertEquals((await admin.get("/api/user")).body.message_retention_days, 365);
  } finally {
    await a.close();
  }
});
