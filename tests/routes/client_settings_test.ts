// deno-lint-ignore-file no-explicit-any -- answers are read field by field
/**
 * The web client's settings: defaults before any, a change kept for every device and told on the
 * bus, the other settings left alone, each user's own, bad input refused at its pointer.
 */
import { assertEquals } from "../support/assert.ts";
import { adminAndUser } from "../support/api.ts";
import { startApp } from "../support/app.ts";
import { DEFAULT_CLIENT_SETTINGS } from "../../protocol/client_settings.ts";
import type { BusEvent } from "../../protocol/events.ts";

Deno.test("web client settings follow the user", async (t) => {
  const a = await startApp();
  try {
    const { admin, user } = await adminAndUser(a);
    const owner = (await a.deps.store.users.byEmail("admin@example.com"))!;
    const told: BusEvent[] = [];
    const stop = a.deps.bus.subscribe(owner.id, (ev) => void told.push(ev));

    await t.step("the defaults before anything is saved", async () => {
      const res = await admin.get("/api/client-settings");
      assertEquals(res.status, 200);
      assertEquals(res.body, DEFAULT_CLIENT_SETTINGS);
    });

    await t.step("a change is kept, the rest stays, and every device is told", async () => {
      const pinned = [{ connection_id: "irc-x", conversation_id: "#tea" }];
      const res = await admin.post("/api/client-settings", {
        theme: "dark",
        nick_suffix: ", ",
        pinned,
      });
      assertEquals(res.status, 200);
      const want = {
        ...DEFAULT_CLIENT_SETTINGS,
        theme: "dark",
        nick_suffix: ", ",
        pinned,
        revision: 1,
      };
      assertEquals(res.body, want);
      await admin.post("/api/client-settings", {
        join_parts_conversations: [{
          connection_id: "irc-x",
          conversation_id: "#tea",
          join_parts: "hide",
        }],
      });
      const now = (await admin.get("/api/client-settings")).body;
      assertEquals(now.theme, "dark");
      assertEquals(now.pinned, pinned);
      assertEquals(now.join_parts_conversations[0].join_parts, "hide");
      assertEquals(now.revision, 2);
      const events = told.filter((e) => e.event === "client_settings") as any[];
      assertEquals(events.length, 2);
      assertEquals(events[1].settings, now);
    });

    await t.step("saves at once each keep their keys, each its own revision", async () => {
      const answers = await Promise.all([
        admin.post("/api/client-settings", { compact: true }),
        admin.post("/api/client-settings", { seconds: true }),
        admin.post("/api/client-settings", { clock24: false }),
        // A revision sent is not the client's to set: dropped.
        admin.post("/api/client-settings", { embeds: false, revision: 99 }),
      ]);
      assertEquals(answers.map((r) => r.status), [200, 200, 200, 200]);
      assertEquals(answers.map((r) => r.body.revision).sort(), [3, 4, 5, 6]);
      const now = (await admin.get("/api/client-settings")).body;
      assertEquals(
        [now.compact, now.seconds, now.clock24, now.embeds, now.revision],
        [true, true, false, false, 6],
      );
      const events = told.filter((e) => e.event === "client_settings") as any[];
      assertEquals(events.at(-1).settings, now, "the last told is the newest");
    });

    await t.step("another user's settings are their own", async () => {
      assertEquals((await user.get("/api/client-settings")).body, DEFAULT_CLIENT_SETTINGS);
      assertEquals(
        (await user.post("/api/client-settings", { compact: true })).body.revision,
        1,
        "counted per user",
      );
    });

    await t.step("bad input is a 400 at its pointer", async () => {
      const theme = await admin.post("/api/client-settings", { theme: "pink" });
      assertEquals(theme.status, 400);
      assertEquals(theme.body.errors[0].path, "/body/theme");
      const suffix = await admin.post("/api/client-settings", { nick_suffix: "x".repeat(9) });
      assertEquals(suffix.body.errors[0].path, "/body/nick_suffix");
      const mode = await admin.post("/api/client-settings", {
        join_parts_networks: [{ connection_id: "irc-x", join_parts: "loud" }],
      });
      assertEquals(mode.body.errors[0].path, "/body/join_parts_networks/0/join_parts");
      assertEquals((await admin.get("/api/client-settings")).body.nick_suffix, ", ");
    });
    stop();
  } finally {
    await a.close();
  }
});
