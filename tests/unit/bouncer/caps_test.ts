/**
 * bouncer/caps.ts: one client's negotiation (CAP LS split into lines, REQ all or nothing and
 * bounded, a handed-over client's capabilities restored) and each row's offer, need and filter.
 * (Each row's filter against forClient is bouncer_caps_table_test's.)
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { CAPABILITIES, Caps, OFFERED, UPSTREAM_CAPS } from "../../../bouncer/caps.ts";

Deno.test("caps: LS before 302 gives names only, and no cap-notify", () => {
  const c = new Caps();
  const words = c.ls(0).flat();
  assert(words.every((w) => !w.includes("=")));
  assertEquals(c.has("cap-notify"), false);
  assertEquals(c.version, 0);
});

Deno.test("caps: LS 302 values; sasl's is the client's mechanisms", () => {
  const c = new Caps(() => "PLAIN,EXTERNAL");
  const words = c.ls(302).flat();
  assert(words.includes("sasl=PLAIN,EXTERNAL"), words.join(" "));
  assert(c.has("cap-notify"));
  // A later LS with a lower version keeps 302.
  c.ls(0);
  assertEquals(c.version, 302);
  assert(c.ls(0).flat().includes("sasl=PLAIN,EXTERNAL"));
});

Deno.test("caps: long LS lists are split, every offered capability once", () => {
  const long = "A".repeat(300);
  const c = new Caps(() => long);
  const lines = c.ls(302);
  assert(lines.length >= 2, "split");
  assertEquals(lines.flat().length, OFFERED.length);
  assertEquals(new Set(lines.flat().map((w) => w.split("=")[0])).size, OFFERED.length);
  for (const l of lines.slice(1)) assert(l.join(" ").length <= 380, "each later line fits");
});

Deno.test("caps: REQ is all or nothing, and bounded", () => {
  const c = new Caps();
  assertEquals(c.request(""), false);
  assertEquals(c.request("   "), false);
  assertEquals(c.request("batch account-tag"), false, "not offered: nothing taken");
  assertEquals(c.has("batch"), false);
  assertEquals(c.request("batch batch"), true);
  assertEquals(c.list(), ["batch"]);
  const many = Array.from({ length: OFFERED.length * 2 + 1 }, () => "batch").join(" ");
  assertEquals(c.request(many), false, "more words than the table could ever need");
  assertEquals(c.request("-batch server-time"), true);
  assertEquals(c.list(), ["server-time"]);
  assertEquals(c.request("-nonsense"), false);
});

Deno.test("caps: a handed-over client's capabilities come back, unknown ones left out", () => {
  const c = new Caps();
  c.restore(["batch", "echo-message", "account-tag", "bogus"], 302);
  assertEquals(c.list().sort(), ["batch", "echo-message"]);
  assertEquals(c.version, 302);
});

Deno.test("caps: each row is offered or asked of the server, and says what lacking it means", () => {
  const names = CAPABILITIES.map((c) => c.name);
  assertEquals(new Set(names).size, names.length, "one row per capability");
  for (const row of CAPABILITIES) {
    assertEquals(
      new Caps().request(row.name),
      row.offered,
      `${row.name}: REQ takes what is offered`,
    );
    assert(row.offered || row.upstream, `${row.name}: a row not offered is asked of the server`);
    assert(row.without, row.name);
  }
  // Parley's own (history, batches, echo) need nothing of the server.
  for (const own of ["server-time", "batch", "echo-message", "draft/chathistory"]) {
    assertEquals(CAPABILITIES.find((c) => c.name === own)!.upstream, null, own);
  }
  assertEquals(new Set(UPSTREAM_CAPS).size, UPSTREAM_CAPS.length, "each asked once");
  assert(UPSTREAM_CAPS.includes("account-tag") && UPSTREAM_CAPS.includes("userhost-in-names"));
});
