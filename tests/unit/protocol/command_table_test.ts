/**
 * The one command table (protocol/command_table.ts) against everything that reads it: the server's
 * handlers, the client's handlers, completion, the dictionaries and the docs.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import {
  COMMAND_TABLE,
  commandsFor,
  type CommandSpec,
  findCommand,
} from "../../../protocol/command_table.ts";
import { checkAllowed, HANDLERS, runCommand } from "../../../irc/chat/commands.ts";
import { CLIENT_HANDLERS, completableCommands, parseInput } from "../../../static/app/commands.ts";
import { startCompletion } from "../../../static/app/complete.ts";
import { loadDictionaries } from "../../../routes/i18n.ts";
import { DomainError } from "../../../lib/errors.ts";
import { EventBus } from "../../../lib/bus.ts";
import { openStore } from "../../../store/mod.ts";

const ROOT = new URL("../../..", import.meta.url).pathname;
const names = (runs: "server" | "client") =>
  COMMAND_TABLE.filter((c) => c.runs === runs).map((c) => c.name).sort();

Deno.test("command table: every entry has a handler and every handler an entry", () => {
  assertEquals(Object.keys(HANDLERS).sort(), names("server"), "server handlers = server entries");
  assertEquals(Object.keys(CLIENT_HANDLERS).sort(), names("client"), "client handlers");
  const typed = COMMAND_TABLE.flatMap((c) => [c.name, ...c.aliases]);
  assertEquals(new Set(typed).size, typed.length, "no name or alias is taken twice");
  for (const c of COMMAND_TABLE) {
    assert(/^[a-z]+$/.test(c.name), `${c.name} is one lower-case word`);
    assert(c.usage === `/${c.name}` || c.usage.startsWith(`/${c.name} `), `${c.name}'s usage`);
    assert(c.description && !c.description.includes("\n"), `${c.name} has a one-line description`);
    for (const a of c.aliases) assertEquals(findCommand(a.toUpperCase())?.name, c.name);
  }
});

Deno.test("command table: every description is a key of every dictionary", async () => {
  const { dictionaries } = await loadDictionaries(`${ROOT}i18n`);
  assert(dictionaries.size >= 4);
  for (const [lang, dict] of dictionaries) {
    for (const c of COMMAND_TABLE) {
      assert(dict[c.description], `${lang}.json lacks "${c.description}" (/${c.name})`);
    }
  }
});

Deno.test("command table: the docs point at it and keep no copy of it", async () => {
  const events = await Deno.readTextFile(`${ROOT}docs/events.md`);
  assert(events.includes("`protocol/command_table.ts`"), "docs/events.md names the table");
  // A hand-kept table of commands (a row per command) is what drifted before.
  const docs = [...Deno.readDirSync(`${ROOT}docs`)].map((e) => `docs/${e.name}`);
  for (const path of [...docs.filter((p) => p.endsWith(".md")), "README.md"]) {
    const text = await Deno.readTextFile(`${ROOT}${path}`);
    for (const c of COMMAND_TABLE) {
      assert(!text.includes(`| \`${c.usage}`), `${path} copies the table's row for /${c.name}`);
    }
  }
});

Deno.test("client: parsing, completion and help come from the table; aliases name the command", () => {
  assertEquals(parseInput("/RAW PING x"), {
    kind: "send",
    message: "/raw PING x",
    command: "quote",
  });
  assertEquals(parseInput("/close"), { kind: "send", message: "/close", command: "close" });
  assertEquals(parseInput("/say /not a command"), {
    kind: "send",
    message: "/say /not a command",
    command: "say",
  });
  assertEquals(parseInput("/help"), { kind: "client", command: "help", args: "" });
  assertEquals(parseInput("/close2"), { kind: "unknown", command: "close2" });
  const all = completableCommands([]);
  for (const c of COMMAND_TABLE) assert(all.includes(c.name), `/${c.name} completes`);
  assert(all.includes("raw"), "aliases complete too");
  const seen: string[] = [];
  const env = {
    navigate: (p: string) => seen.push(p),
    showHelp: () => seen.push("help"),
    showKeys: () => seen.push("keys"),
    bouncerServ: (command: string) => seen.push(`bouncerserv ${command}`),
  };
  CLIENT_HANDLERS.search("a b&c", env);
  CLIENT_HANDLERS.help("", env);
  CLIENT_HANDLERS.help("keys", env);
  CLIENT_HANDLERS.bouncerserv(" network status ", env);
  CLIENT_HANDLERS.bouncerserv("", env);
  assertEquals(seen, [
    "/chat/search?q=a%20b%26c",
    "help",
    "keys",
    "bouncerserv network status",
    "bouncerserv help",
  ]);
});

Deno.test("client: admin-only commands are hidden from others in completion and help", () => {
  const table: CommandSpec[] = [
    ...COMMAND_TABLE,
    {
      name: "rehash",
      aliases: ["reload"],
      usage: "/rehash",
      description: "Reloads the configuration",
      who: "admin",
      where: "anywhere",
      runs: "server",
    },
  ];
  const user = completableCommands([], table);
  const admin = completableCommands(["admin"], table);
  assert(!user.includes("rehash") && !user.includes("reload"), "hidden from a user");
  assert(admin.includes("rehash") && admin.includes("reload"), "offered to an admin");
  assertEquals(startCompletion("/reh", 4, [], [], user), null);
  assertEquals(startCompletion("/reh", 4, [], [], admin)?.candidates, ["/rehash"]);
  assert(!commandsFor([], table).some((c) => c.name === "rehash"), "not in a user's /help");
  assert(commandsFor(["admin"], table).some((c) => c.name === "rehash"), "in an admin's /help");
});

/** A command context on a real store, with no live connection. */
async function context(conversationId: string, roles: string[] = []) {
  const home = await Deno.makeTempDir({ prefix: "parley-commands-" });
  const store = await openStore(home);
  const u = await store.users.create("a@example.com", "x", roles);
  const record = await store.connections.create({
    userId: u.id,
    connectionId: "irc-x",
    name: "x",
    url: "irc://x?nick=a",
    onConnectCommands: [],
    wantedState: "disconnected",
  });
  const control = { connect: noop, disconnect: noop, reconnect: noop, setNick: noop };
  return {
    ctx: {
      deps: { store, bus: new EventBus() },
      record,
      conn: undefined,
      conversationId,
      conversation: undefined,
      control,
    },
    async [Symbol.asyncDispose]() {
      await store.close();
      await Deno.remove(home, { recursive: true });
    },
  };
}
const noop = () => Promise.resolve();

async function refusal(run: () => Promise<unknown>): Promise<DomainError> {
  try {
    await run();
  } catch (err) {
    assert(err instanceof DomainError, `a domain error, not ${err}`);
    return err;
  }
  throw new Error("not refused");
}

Deno.test("server: `where` is enforced before the handler and usage errors quote the table", async () => {
  await using server = await context("");
  await using priv = await context("bob");
  for (const c of COMMAND_TABLE.filter((c) => c.where !== "anywhere")) {
    const err = await refusal(() => runCommand(server.ctx, `/${c.name} x`));
    assertEquals([err.kind, err.message, err.path], [
      "invalid",
      "Cannot send without target.",
      "/body/message",
    ], `/${c.name} in the server conversation`);
    if (c.where !== "channel") continue;
    const inPrivate = await refusal(() => runCommand(priv.ctx, `/${c.name} x`));
    assertEquals(inPrivate.message, `/${c.name} works in a channel.`);
  }
  // A usage error quotes the table's usage line.
  for (const name of ["msg", "notice", "query", "nick", "whois", "quote", "clear"]) {
    const err = await refusal(() => runCommand(priv.ctx, `/${name}`));
    assertEquals(err.message, `Usage: ${findCommand(name)!.usage}`);
  }
  // Plain text is /say: it needs a conversation too.
  assertEquals(
    (await refusal(() => runCommand(server.ctx, "hi"))).message,
    "Cannot send without target.",
  );
  const unknown = await refusal(() => runCommand(server.ctx, "/help"));
  assert(
    unknown.message.startsWith("Unknown command: /help."),
    "the client's commands are not run here",
  );
});

Deno.test("server: an admin-only command is refused to others with a forbidden error", async () => {
  const spec = {
    ...COMMAND_TABLE[0],
    name: "rehash",
    who: "admin" as const,
    where: "anywhere" as const,
  };
  await using user = await context("");
  await using admin = await context("", ["admin"]);
  const err = await refusal(() => checkAllowed(user.ctx, spec));
  assertEquals([err.kind, err.message], ["forbidden", "Only an admin may use /rehash."]);
  await checkAllowed(admin.ctx, spec);
});

Deno.test("server: /part keeps a channel listed, /close removes it and tells every device", async () => {
  await using c = await context("#chan");
  const { store, bus } = c.ctx.deps;
  const conv = await store.conversations.ensure(c.ctx.record.id, "#chan", "#chan");
  await store.conversations.setJoined(conv.id, true);
  const seen: unknown[] = [];
  bus.subscribe(c.ctx.record.userId, (ev) => seen.push(ev));
  await runCommand(c.ctx, "/part");
  assertEquals((await store.conversations.get(c.ctx.record.id, "#chan"))?.joined, false);
  assertEquals(seen, [], "left to read: still there, nothing removed");
  assertEquals(await runCommand(c.ctx, "/close"), { conversation_id: "#chan" });
  assertEquals(await store.conversations.get(c.ctx.record.id, "#chan"), undefined);
  assertEquals(seen, [{
    event: "state",
    type: "part",
    connection_id: "irc-x",
    conversation_id: "#chan",
    nick: "",
    closed: true,
  }]);
  // Closed already: nothing to close.
  const err = await refusal(() => runCommand(c.ctx, "/close"));
  assertEquals(err.message, "No conversation #chan.");
});
