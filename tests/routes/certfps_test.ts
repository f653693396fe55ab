/**
 * The account page's client certificates through the API: registered by fingerprint (colons and
 * case ignored), listed, one owner each, removed; bad input gets the API's error body. And
 * `/api/bouncerserv`, the web client's BouncerServ: the same commands and answers as over IRC.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { adminAndUser } from "../support/api.ts";
import { MAX_CERTFPS } from "../../store/certfp.ts";

const FP = "0123456789abcdef".repeat(4);

Deno.test("certfps: add, list, one owner each, remove", async () => {
  const a = await startApp();
  try {
    const { admin, user: bob } = await adminAndUser(a);
    const typed = FP.toUpperCase().match(/../g)!.join(":");
    const made = await admin.post("/api/certfps", { fingerprint: typed });
    assertEquals(made.status, 201, JSON.stringify(made.body));
    assertEquals(made.body.fingerprint, FP);
    const list = await admin.get("/api/certfps");
    assertEquals(list.body.certfps.map((c: { fingerprint: string }) => c.fingerprint), [FP]);
    assertEquals((await bob.get("/api/certfps")).body.certfps, []);

    // bob's session was opened by his invite link, not by his password: a certificate that
    // would outlive a new password needs it.
    const current_password = "correct horse battery";
    const unconfirmed = await bob.post("/api/certfps", { fingerprint: FP.replace("0", "f") });
    assertEquals([unconfirmed.status, unconfirmed.body.errors], [400, [{
      message: "Enter your current password to add a certificate.",
      path: "/body/current_password",
    }]]);
    const taken = await bob.post("/api/certfps", { fingerprint: FP, current_password });
    assertEquals(taken.status, 409);
    assertEquals(taken.body.errors[0].path, "/body/fingerprint");
    const bad = await admin.post("/api/certfps", { fingerprint: "abc" });
    assertEquals(bad.status, 400);
    assertEquals(bad.body.errors[0].path, "/body/fingerprint");

    assertEquals((await bob.delete(`/api/certfps/${FP}`)).status, 404, "not bob's");
    assertEquals((await admin.delete(`/api/certfps/${FP}`)).status, 200);
    assertEquals((await admin.get("/api/certfps")).body.certfps, []);
    assertEquals((await admin.delete("/api/certfps/nope")).status, 400);

    // Bounded per user: past the bound, the API's error body.
    const fp = (i: number) => (i + 1).toString(16).padStart(64, "0");
    for (let i = 0; i < MAX_CERTFPS; i++) {
      const added = await bob.post("/api/certfps", { fingerprint: fp(i), current_password });
      assertEquals(added.status, 201);
    }
    const full = await bob.post("/api/certfps", {
      fingerprint: fp(MAX_CERTFPS),
      current_password,
    });
    assertEquals([full.status, full.body.errors], [400, [{
      message: `At most ${MAX_CERTFPS} certificates: remove one no longer used.`,
      path: "/body/fingerprint",
    }]]);
  } finally {
    await a.close();
  }
});

Deno.test("bouncerserv: the web client runs BouncerServ's commands", async () => {
  const a = await startApp();
  try {
    const { admin, user: bob } = await adminAndUser(a);
    const help = await admin.post("/api/bouncerserv", { command: "help user delete" });
    assertEquals(help.status, 200);
    assertEquals(help.body.lines.length, 1);
    assert(help.body.lines[0].startsWith("user delete <email>"), help.body.lines[0]);
    await admin.post("/api/bouncerserv", { command: `certfp add ${FP}` });
    assertEquals((await admin.get("/api/certfps")).body.certfps.length, 1);
    // bob's session was not opened with his password: BouncerServ asks for it as the page does.
    const unconfirmed = await bob.post("/api/bouncerserv", {
      command: `certfp add ${"e".repeat(64)}`,
    });
    assert(unconfirmed.body.lines[0].startsWith("Adding a certificate needs your password"));
    assertEquals((await bob.get("/api/certfps")).body.certfps, []);
    const refused = await bob.post("/api/bouncerserv", { command: "server notice hi" });
    assertEquals(refused.body.lines, ["Only admins can do this."]);
    const none = await admin.post("/api/bouncerserv", {});
    assertEquals(none.status, 400);
    assertEquals(none.body.errors[0].path, "/body/command");
  } finally {
    await a.close();
  }
});
