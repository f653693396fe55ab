/**
 * bouncer/service/sasl.ts: `sasl status|set-plain|reset` read and change how a network logs in,
 * in its stored URL, through the connection service (a fake IRC side).
 */
import { assertEquals } from "../../../support/assert.ts";
import { withStore } from "../fakes.ts";
import { service } from "./service.ts";

Deno.test("bouncerserv sasl: status, set-plain and reset, and their wrong uses", async () => {
  await withStore(async (store) => {
    const { as, connections, fake } = service(store);
    const jane = await store.users.create("jane@example.com", "x", []);
    const made = await connections.create(jane, {
      url: "ircs://irc.example.org?nick=jane",
      wanted_state: "disconnected",
    }, "/");
    const id = made.connection_id;
    const run = as(jane, id);
    const url = async () => new URL((await store.connections.get(jane.id, id))!.url);
    assertEquals(await run("sasl status"), [`${id}: SASL is off.`]);
    assertEquals(await run("sasl reset"), [`${id}: SASL is off.`]);
    assertEquals((await run("sasl set-plain jane"))[0], "Give a username and a password.");
    assertEquals((await run("sasl set-plain a b c"))[0], "Give a username and a password.");
    assertEquals(await run('sasl set-plain "jane doe" "p@ss:word"'), [
      `${id} logs in with SASL PLAIN as jane doe now.`,
    ]);
    let u = await url();
    assertEquals(
      [decodeURIComponent(u.username), decodeURIComponent(u.password), u.searchParams.get("sasl")],
      ["jane doe", "p@ss:word", "plain"],
    );
    assertEquals(await run("sasl status"), [`${id}: SASL PLAIN as jane doe (not logged in).`]);
    assertEquals(await run("sasl reset"), [`${id}: SASL is off.`]);
    u = await url();
    assertEquals([u.username, u.password, u.searchParams.has("sasl")], ["", "", false]);
    // EXTERNAL is said as such; a failed connect after the change is said after it was saved.
    await connections.update(
      jane.id,
      id,
      { url: "ircs://irc.example.org?nick=jane&sasl=external" },
      "/",
    );
    assertEquals(await run("sasl status"), [
      `${id}: SASL EXTERNAL with the network's client certificate (not logged in).`,
    ]);
    await connections.update(jane.id, id, { wanted_state: "connected" }, "/");
    fake.failConnect = true;
    assertEquals(await run("sasl set-plain jane pw"), [
      "Saved, but connecting failed: Connection refused",
    ]);
    assertEquals((await url()).searchParams.get("sasl"), "plain");
    assertEquals(
      (await as(jane)("sasl status -network irc-nope"))[0],
      'No network "irc-nope". Type "network status" to list yours.',
    );
  });
});
