/**
 * bouncer/service/table.ts: a command found by its words (each may be shortened while it stays
 * unambiguous), every wrong use answered with what to type, admin-only commands refused to
 * others, and `help`.
 */
import { assert, assertEquals } from "../../../support/assert.ts";
import "../../../../bouncer/service/mod.ts";
import {
  findCommand,
  runService,
  SERVICE_COMMANDS,
  type ServiceDeps,
} from "../../../../bouncer/service/table.ts";
import { logged, withStore } from "../fakes.ts";
import { service } from "./service.ts";
import { loadDictionaries } from "../../../../routes/i18n.ts";

const found = (line: string) => {
  const r = findCommand(line.split(" "));
  if (!r) return "none";
  if ("ambiguous" in r) return `ambiguous ${r.word}: ${r.ambiguous.join(",")}`;
  return [r.command.name, ...r.rest].join("|");
};

Deno.test("bouncerserv table: words may be shortened while they stay unambiguous", () => {
  assertEquals(found("net st"), "network status");
  assertEquals(found("NETWORK STATUS"), "network status");
  assertEquals(found("network status extra words"), "network status|extra|words");
  assertEquals(found("se n hello"), "server notice|hello");
  assertEquals(found("h"), "help");
  assertEquals(found("help net"), "help|net");
  assertEquals(found("s st"), "ambiguous s: sasl,server");
  assertEquals(found("c"), "ambiguous c: certfp,channel");
  assertEquals(found("network"), "none", "a group alone is no command");
  assertEquals(found("network frob"), "none");
  assertEquals(found("frob"), "none");
  assertEquals(found("user c -username x"), "user create|-username|x");
  assertEquals(found("user d x"), "user delete|x");
  assertEquals(found("user cr -username x"), "user create|-username|x");
});

Deno.test("bouncerserv table: every command has a description; admin ones are marked", () => {
  const names = SERVICE_COMMANDS.map((c) => c.name);
  assertEquals(new Set(names).size, names.length);
  for (const c of SERVICE_COMMANDS) assert(c.description, c.name);
  assertEquals(
    SERVICE_COMMANDS.filter((c) => c.admin).map((c) => c.name).sort(),
    ["server notice", "user create", "user delete", "user update"],
  );
});

Deno.test("bouncerserv: what to type after a line that names nothing", async () => {
  await withStore(async (store) => {
    const { as } = service(store);
    const jane = await store.users.create("jane@example.com", "x", []);
    const run = as(jane);
    assertEquals(await run("   "), ['Type "help" for the list of commands.']);
    assertEquals(await run('network create -name "open'), ["A quote is not closed."]);
    assertEquals(await run("frobnicate the widget"), [
      'Unknown command "frobnicate the". Type "help" for the list of commands.',
    ]);
    assertEquals(await run("c status"), ['"c" could be any of: certfp, channel.']);
    // A wrong use of a command: what was wrong, then how to type it.
    assertEquals(await run("network delete"), [
      "Name the network to delete.",
      'Usage: network delete <network> (type "help network delete")',
    ]);
    // A refusal of the store or the service: its message alone.
    assertEquals(await run("network delete irc-nope"), [
      'No network "irc-nope". Type "network status" to list yours.',
    ]);
  });
});

Deno.test("bouncerserv: the admin commands are refused to others, as stored now", async () => {
  await withStore(async (store) => {
    const { as } = service(store);
    const admin = await store.users.create("root@example.com", "x", ["admin"]);
    const jane = await store.users.create("jane@example.com", "x", []);
    for (
      const line of [
        "user create -username joe@example.com -password long-enough-1",
        "user update root@example.com -admin false",
        "user delete root@example.com",
        "server notice hello",
      ]
    ) assertEquals(await as(jane)(line), ["Only admins can do this."], line);
    assertEquals(await store.users.byEmail("joe@example.com"), undefined);
    // A demoted admin is no longer one: the user is read as stored now.
    await store.users.update(admin.id, { roles: [] });
    assertEquals(await as(admin)("server notice hello"), ["Only admins can do this."]);
  });
});

Deno.test("bouncerserv: help lists what the caller may run, or how to type one", async () => {
  await withStore(async (store) => {
    const { as } = service(store);
    const admin = await store.users.create("root@example.com", "x", ["admin"]);
    const jane = await store.users.create("jane@example.com", "x", []);
    const mine = await as(jane)("help");
    assert(mine[0].startsWith("Commands"), mine[0]);
    assert(mine.some((l) => l.startsWith("network create -addr <address>")), mine.join("\n"));
    assert(!mine.some((l) => l.startsWith("user create")), "no admin commands for jane");
    const all = await as(admin)("help");
    assertEquals(all.length, SERVICE_COMMANDS.length + 1);
    const network = await as(jane)("help network");
    assertEquals(network.map((l) => l.split(" ").slice(0, 2).join(" ").replace(/:$/, "")), [
      "network create",
      "network update",
      "network delete",
      "network status",
    ]);
    assertEquals(await as(jane)("help net del"), [
      "network delete <network>: Deletes a network with its conversations and history",
    ]);
    assertEquals(await as(jane)("help frob"), [
      'Unknown command "frob". Type "help" for the list of commands.',
    ]);
  });
});

Deno.test("bouncerserv: a command that fails unexpectedly says so, and logs why", async () => {
  await withStore(async (store) => {
    const jane = await store.users.create("jane@example.com", "x", []);
    const { deps } = service(store);
    const broken: ServiceDeps = {
      ...deps,
      connections: {
        list: () => Promise.reject(new Error("the disk is on fire")),
      } as unknown as ServiceDeps["connections"],
    };
    const { value, lines } = await logged(() =>
      runService({ deps: broken, user: jane, network: "" }, "network status")
    );
    assertEquals(value, ["The command could not be run."]);
    assert(lines.some((l) => l.includes("the disk is on fire")), lines.join("\n"));
  });
});

// BouncerServ speaks from the dictionaries: every text its modules look up (t("..."), and each
// command's usage and description) is in en.json, so every language's dictionary has it too
// (i18n_test.ts checks those against en.json).

const ROOT = new URL("../../../..", import.meta.url).pathname;

/** Every literal BouncerServ's modules pass to t(). */
export async function serviceTexts(): Promise<Set<string>> {
  const found = new Set<string>();
  for await (const e of Deno.readDir(`${ROOT}bouncer/service`)) {
    if (!e.name.endsWith(".ts")) continue;
    const text = await Deno.readTextFile(`${ROOT}bouncer/service/${e.name}`);
    for (const m of text.matchAll(/\bt\(\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')/g)) {
      found.add(m[1].startsWith("'") ? m[1].slice(1, -1).replace(/\\'/g, "'") : JSON.parse(m[1]));
    }
  }
  for (const c of SERVICE_COMMANDS) {
    found.add(c.description);
    if (c.usage) found.add(c.usage);
  }
  return found;
}

Deno.test("bouncerserv: every text it says is in en.json", async () => {
  const { dictionaries } = await loadDictionaries(`${ROOT}i18n`);
  const en = dictionaries.get("en")!;
  const texts = await serviceTexts();
  assert(texts.size > 60, `the scanner finds the service's texts (${texts.size})`);
  const missing = [...texts].filter((x) => !(x in en));
  assert(!missing.length, `not in en.json:\n${missing.join("\n")}`);
});
