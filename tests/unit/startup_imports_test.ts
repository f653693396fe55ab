/**
 * What the daemon loads at start (docs/architecture.md, "Loaded on first use"): the packages it
 * rarely needs are imported on first use, so a static import of one of them (easy to add back
 * without noticing) would keep its code in every idle daemon's memory.
 */
import { assert, assertEquals } from "../support/assert.ts";

const ROOT = new URL("../..", import.meta.url);

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier?: string }; isDynamic?: boolean }[];
}

/** Every module `entry` imports statically, directly or not (what loads when it loads). */
async function staticGraph(entry: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert(out.success, `deno info ${entry}`);
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: InfoModule[];
    redirects?: Record<string, string>;
  };
  const modules = new Map(info.modules.map((m) => [m.specifier, m]));
  const resolve = (s: string) => info.redirects?.[s] ?? s;
  const seen = new Set([resolve(info.roots[0])]);
  const todo = [...seen];
  while (todo.length) {
    for (const dep of modules.get(todo.pop()!)?.dependencies ?? []) {
      const target = dep.code?.specifier;
      if (!target || dep.isDynamic) continue;
      const s = resolve(target);
      if (!seen.has(s)) {
        seen.add(s);
        todo.push(s);
      }
    }
  }
  return [...seen];
}

/** The npm packages among `modules`, by name. */
function packages(modules: string[]): Set<string> {
  const names = modules.map((s) =>
    s.match(/^npm:\/?((?:@[^/@]+\/)?[^/@]+)@/)?.[1] ??
      s.match(/registry\.npmjs\.org\/((?:@[^/]+\/)?[^/]+)\/\d/)?.[1]
  );
  return new Set(names.filter((n): n is string => !!n));
}

Deno.test("the parley command loads only the subcommand that runs", async () => {
  const graph = await staticGraph("main.ts");
  assertEquals(graph.filter((s) => s.includes("/cli/") && !s.endsWith("/cli/help.ts")), []);
});

Deno.test("the daemon loads the rarely needed packages on first use", async () => {
  const loaded = packages(await staticGraph("cli/daemon.ts"));
  assert(loaded.has("hono") && loaded.has("zod"), `the graph was read: ${[...loaded]}`);
  for (
    const lazy of [
      "web-push",
      "busboy",
      "htmlparser2",
      "postgres",
      "@node-rs/argon2",
      "prom-client",
    ]
  ) {
    assert(!loaded.has(lazy), `${lazy} is imported statically at start`);
  }
});
