/**
 * What a first page load fetches of the client: the entry `app.js` and every chunk it imports
 * statically, each gzipped as the server sends it. Screens loaded on demand (`import("...")`)
 * are not counted.
 */
import { join } from "node:path";

/**
 * The bound on the entry's gzipped size, in bytes.
 *
 * @internal test seam
 */
export const ENTRY_GZIP_LIMIT = 40_000;

async function gzipSize(body: Uint8Array): Promise<number> {
  const stream = new Blob([body as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

// `import{a as b}from"./chunk-X.js"` and `import"./chunk-X.js"`, not `import("./Admin-X.js")`.
const STATIC_IMPORT = /\bimport\s*(?:[\w$*{}\s,]*?\s*from\s*)?["']\.\/([\w.-]+\.js)["']/g;

/** The files the entry loads before it runs, and the sum of their gzipped sizes. */
export async function entryGzip(dir: string, entry = "app.js") {
  const files: string[] = [];
  let bytes = 0;
  const todo = [entry];
  while (todo.length) {
    const name = todo.pop()!;
    if (files.includes(name)) continue;
    files.push(name);
    const body = await Deno.readFile(join(dir, name));
    bytes += await gzipSize(body);
    for (const m of new TextDecoder().decode(body).matchAll(STATIC_IMPORT)) todo.push(m[1]);
  }
  return { files, bytes };
}
