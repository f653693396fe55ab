/**
 * The store is a lower layer: it imports nothing of IRC or HTTP, so it cannot grow a dependency
 * on how messages arrive or are served. Its backends (store/sqlite/, store/pg/) implement the
 * contract in store/ and never import each other, so each can be read, changed or added alone.
 */
import { assertEquals } from "../support/assert.ts";

const STORE = new URL("../../store/", import.meta.url);
const FORBIDDEN = /from\s+"(?:\.\.\/)+(irc|http|routes|files|webhook|embed|push)\//;

/** Every TypeScript file under `dir`, as paths relative to the store folder. */
async function sources(dir: URL, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) {
      out.push(...await sources(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`));
    } else if (entry.name.endsWith(".ts")) out.push(`${prefix}${entry.name}`);
  }
  return out;
}

Deno.test("store/ imports no IRC, HTTP or other upper-layer code", async () => {
  const offending: string[] = [];
  for (const file of await sources(STORE)) {
    const text = await Deno.readTextFile(new URL(file, STORE));
    for (const line of text.split("\n")) {
      const m = FORBIDDEN.exec(line);
      if (m) offending.push(`${file}: ${line.trim()}`);
    }
  }
  assertEquals(offending, []);
});

/**
 * The backend a store-relative path belongs to: each folder of store/ is one backend, but
 * tables/ (the table groups written once, over any backend's executor) is the contract's.
 */
function backendOf(file: string): string | undefined {
  const folder = /^([^/]+)\//.exec(file)?.[1];
  return folder === "tables" ? undefined : folder;
}

Deno.test("store/ backends import the contract, never each other", async () => {
  const offending: string[] = [];
  for (const file of await sources(STORE)) {
    const own = backendOf(file);
    const text = await Deno.readTextFile(new URL(file, STORE));
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
      const target = new URL(m[1], new URL(file, STORE)).href;
      if (!target.startsWith(STORE.href)) continue;
      const other = backendOf(target.slice(STORE.href.length));
      // The contract (store/ itself) may load a backend only by a dynamic import, or read its
      // descriptor (the registry, backends.ts); a backend may import only its own folder and the
      // contract.
      const dynamic = m[0].includes("(");
      const descriptor = file === "backends.ts" && target.endsWith("/backend.ts");
      if (other && other !== own && !(own === undefined && (dynamic || descriptor))) {
        offending.push(`${file}: ${m[1]}`);
      }
    }
  }
  assertEquals(offending, []);
});

Deno.test("store/ backends' descriptors load their backend only when chosen", async () => {
  const offending: string[] = [];
  for (const file of await sources(STORE)) {
    if (!backendOf(file) || !file.endsWith("/backend.ts")) continue;
    const text = await Deno.readTextFile(new URL(file, STORE));
    // The registry reads every descriptor at start; a static import here would load its backend
    // (and its database client) in every daemon.
    for (const m of text.matchAll(/^import\s+(?!type\b)[^;]*from\s+"([^"]+)"/gm)) {
      offending.push(`${file}: ${m[1]}`);
    }
  }
  assertEquals(offending, []);
});

Deno.test("store/'s contract names no database client", async () => {
  const offending: string[] = [];
  for (const file of await sources(STORE)) {
    if (backendOf(file)) continue;
    const text = await Deno.readTextFile(new URL(file, STORE));
    for (const m of text.matchAll(/from\s+"(node:sqlite|postgres|npm:[^"]*)"/g)) {
      offending.push(`${file}: ${m[1]}`);
    }
  }
  assertEquals(offending, []);
});
