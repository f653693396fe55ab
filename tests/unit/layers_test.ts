/**
 * The module structure docs/architecture.md promises, checked on Deno's own module graph
 * (`deno info --json`, type-only imports included):
 *
 * - every rule of the form "- `a/`, `b/` never import `c/`, `d.ts`: why" in the document's lists
 *   holds: no module under a named place imports one of the others, directly (a rule that names
 *   no place fails here, so a new rule is written to be checked); "never imports anything outside
 *   `c/`, `d/`" names the only places its modules may import;
 * - protocol/ takes nothing from npm but zod;
 * - the parts of irc/ (socket, engine, chat, bot, protocol) have no circle between them, through
 *   any module: one part may depend on another only one way.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const IRC_PARTS = ["irc/socket/", "irc/engine/", "irc/chat/", "irc/bot/", "irc/protocol/"];
/** The folders whose modules make the graph: everything the daemon runs. */
const SOURCES = [
  "app.ts",
  "config.ts",
  "deps.ts",
  "main.ts",
  "bouncer",
  "cli",
  "cluster",
  "embed",
  "files",
  "http",
  "import",
  "irc",
  "lib",
  "metrics",
  "protocol",
  "push",
  "routes",
  "static/app",
  "store",
  "updates",
  "webhook",
];

async function* modules(path: string): AsyncGenerator<string> {
  const info = await Deno.stat(path);
  if (info.isFile) {
    if (/\.tsx?$/.test(path) && !path.endsWith(".d.ts")) yield path;
    return;
  }
  for await (const entry of Deno.readDir(path)) yield* modules(join(path, entry.name));
}

/**
 * Each module (a path from the root) and the modules it imports, code and types; a module's
 * imports from npm are listed as their package's name (`npm:zod`).
 */
async function importGraph(): Promise<Map<string, string[]>> {
  const roots: string[] = [];
  for (const s of SOURCES) for await (const m of modules(join(ROOT, s))) roots.push(m);
  const entry = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(
      entry,
      roots.map((r) => `import type {} from "${pathToFileURL(r).href}";`).join("\n"),
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", join(ROOT, "deno.json"), entry],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert(out.success, new TextDecoder().decode(out.stderr));
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      modules: {
        specifier: string;
        dependencies?: { code?: { specifier: string }; type?: { specifier: string } }[];
      }[];
    };
    const local = (specifier: string) =>
      specifier.startsWith("file://") ? relative(ROOT, fileURLToPath(specifier)) : undefined;
    const graph = new Map<string, string[]>();
    for (const m of info.modules) {
      const from = local(m.specifier);
      if (!from || from.startsWith("..")) continue;
      const to = new Set<string>();
      for (const d of m.dependencies ?? []) {
        for (const s of [d.code?.specifier, d.type?.specifier]) {
          const path = s && local(s);
          if (path && !path.startsWith("..")) to.add(path);
          const npm = s?.match(/^npm:\/?((?:@[^/@]+\/)?[^/@]+)/);
          if (npm) to.add(`npm:${npm[1]}`);
        }
      }
      graph.set(from, [...to]);
    }
    return graph;
  } finally {
    await Deno.remove(entry);
  }
}

const graph = await importGraph();

/** A folder (`irc/`) holds a module by prefix; a file (`app.ts`) is itself. */
const within = (module: string, place: string) =>
  place.endsWith("/") ? module.startsWith(place) : module === place;

/** The places named in backquotes in a piece of a sentence. */
const named = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

/**
 * The "X never imports Y" rules of docs/architecture.md: each list item that says so, as the
 * sentence, the places before "never" and those after it up to the reason (after a colon).
 */
async function neverRules(): Promise<
  { rule: string; from: string[]; to: string[]; outside: boolean }[]
> {
  const doc = await Deno.readTextFile(join(ROOT, "docs/architecture.md"));
  const items: string[] = [];
  for (const line of doc.split("\n")) {
    if (/^- /.test(line)) items.push(line.slice(2));
    else if (/^ {2}\S/.test(line) && items.length) items[items.length - 1] += ` ${line.trim()}`;
    else items.push("");
  }
  const rules = [];
  for (const rule of items) {
    const at = rule.search(/never imports?\b/);
    if (at < 0) continue;
    const reason = rule.indexOf(": ", at);
    const to = named(rule.slice(at, reason < 0 ? undefined : reason));
    const outside = /^never imports? anything outside\b/.test(rule.slice(at));
    rules.push({ rule, from: named(rule.slice(0, at)), to, outside });
  }
  return rules;
}

Deno.test("architecture: every 'never imports' rule of docs/architecture.md holds", async () => {
  const rules = await neverRules();
  assert(rules.length >= 5, `the rules were found: ${rules.length}`);
  const broken: string[] = [];
  for (const { rule, from, to, outside } of rules) {
    assert(from.length && to.length, `a rule names its places in backquotes: ${rule}`);
    for (const place of [...from, ...to]) {
      const known = [...graph.keys()].some((m) => within(m, place));
      assert(known, `"${place}" in "${rule}" names no module`);
    }
    for (const [module, deps] of graph) {
      if (!from.some((p) => within(module, p))) continue;
      for (const dep of deps) {
        if (dep.startsWith("npm:")) continue;
        // A folder's modules may import each other: `irc/` never importing `irc/` is no rule.
        const own = from.some((f) => within(dep, f));
        const hit = to.some((p) => within(dep, p));
        if (outside ? !hit && !own : hit && !own) {
          broken.push(`${module} imports ${dep} ("${rule}")`);
        }
      }
    }
  }
  assertEquals(broken, []);
});

Deno.test("architecture: protocol/ takes nothing from npm but zod", () => {
  const npm = new Set<string>();
  for (const [module, deps] of graph) {
    if (!within(module, "protocol/")) continue;
    for (const dep of deps) if (dep.startsWith("npm:")) npm.add(`${module} imports ${dep}`);
  }
  assert([...npm].some((d) => d.endsWith(" imports npm:zod")), "the contract's zod was seen");
  assertEquals([...npm].filter((d) => !d.endsWith(" imports npm:zod")), []);
});

/** The part of irc/ a module is in, if any. */
const partOf = (module: string) => IRC_PARTS.find((p) => module.startsWith(p));

/**
 * For each part, the parts its modules reach through modules of no part (irc/'s shared modules,
 * lib/, the store...), with one path for each, to show where a circle goes.
 */
function partEdges(): Map<string, Map<string, string[]>> {
  const edges = new Map<string, Map<string, string[]>>();
  for (const part of IRC_PARTS) {
    const reached = new Map<string, string[]>();
    const seen = new Set<string>();
    const queue: string[][] = [...graph.keys()].filter((m) => partOf(m) === part).map((m) => [m]);
    while (queue.length) {
      const path = queue.shift()!;
      for (const dep of graph.get(path[path.length - 1]) ?? []) {
        if (seen.has(dep)) continue;
        seen.add(dep);
        const other = partOf(dep);
        if (other === part) continue;
        if (other) {
          if (!reached.has(other)) reached.set(other, [...path, dep]);
        } else queue.push([...path, dep]);
      }
    }
    edges.set(part, reached);
  }
  return edges;
}

Deno.test("architecture: irc/'s parts have no import circle between them", () => {
  const edges = partEdges();
  const circles: string[] = [];
  for (const [a, reached] of edges) {
    for (const [b, path] of reached) {
      const back = edges.get(b)?.get(a);
      if (back && a < b) circles.push(`${path.join(" -> ")}\n  and back: ${back.join(" -> ")}`);
    }
  }
  assertEquals(circles, []);
  // The order the parts stand in: each depends only on those after it.
  assertEquals([...edges.get("irc/protocol/")!.keys()], [], "irc/protocol/ depends on no part");
});
