/**
 * The ignore list over the API: a nick is kept as its mask, each mask once, per user; bad input
 * gets the error body with a pointer; the list is the user's alone.
 */
import { assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { adminAndUser } from "../support/api.ts";

Deno.test("ignores: list, add, remove, errors, per user", async () => {
  const a = await startApp();
  try {
    const { admin: ann, user: ben } = await adminAndUser(a);
    assertEquals((await ann.get("/api/ignores")).body, { ignores: [] });
    const added = await ann.post("/api/ignores", { mask: "Troll" });
    assertEquals(added.status, 201);
    assertEquals(added.body, { mask: "troll!*@*", ignores: ["troll!*@*"] });
    await ann.post("/api/ignores", { mask: "*!*@Spam.Example" });
    const again = await ann.post("/api/ignores", { mask: "troll" });
    assertEquals(again.body.ignores, ["troll!*@*", "*!*@spam.example"], "each mask once");
    assertEquals((await ben.get("/api/ignores")).body, { ignores: [] }, "ann's list is hers");
    const gone = await ben.request("DELETE", "/api/ignores", { mask: "troll" });
    assertEquals(gone.status, 400);
    assertEquals(gone.body.errors, [
      { message: "troll!*@* is not on your ignore list.", path: "/body/mask" },
    ]);
    const removed = await ann.request("DELETE", "/api/ignores", { mask: "troll!*@*" });
    assertEquals(removed.body, { mask: "troll!*@*", ignores: ["*!*@spam.example"] });

    for (
      const [body, message] of [
        [{}, "mask is required."],
        [{ mask: "" }, "mask is required."],
        [{ mask: "two words" }, "Not a nick or mask: two words"],
        [{ mask: "a!b!c@d" }, "Not a nick or mask: a!b!c@d"],
        [{ mask: "x".repeat(201) }, "At most 200 characters."],
      ] as const
    ) {
      const res = await ann.post("/api/ignores", body);
      assertEquals(res.status, 400, JSON.stringify(body));
      assertEquals(res.body.errors[0], { message, path: "/body/mask" });
    }
  } finally {
    await a.close();
  }
});
