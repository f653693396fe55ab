/**
 * ZNC's configuration file (`configs/znc.conf`) and module registries (`moddata/MOD/.registry`),
 * read as ZNC 1.8 reads them: `Name = value` lines (names case-insensitive, a value may repeat),
 * `<Tag name>` ... `</Tag>` blocks, `#` and `//` comment lines and `/* ... *\/` comment blocks.
 */
import { fileError } from "./common.ts";
import { readLines } from "./lines.ts";

/** A block of the file: its values by lower-cased name, and its sub-blocks by tag and name. */
export interface ZncBlock {
  values: Map<string, string[]>;
  blocks: Map<string, Map<string, ZncBlock>>;
}

/** Larger files are no ZNC configuration or registry. */
const MAX_BYTES = 4 * 1024 * 1024;

const block = (): ZncBlock => ({ values: new Map(), blocks: new Map() });

/** The last value of `name` in a block ("" when missing). */
export function value(b: ZncBlock, name: string): string {
  return b.values.get(name.toLowerCase())?.at(-1) ?? "";
}

/** Every value of `name` in a block, in file order. */
export function values(b: ZncBlock, name: string): string[] {
  return b.values.get(name.toLowerCase()) ?? [];
}

/** The sub-blocks with `tag` (`User`, `Network`, `Chan`), by name, in file order. */
export function blocks(b: ZncBlock, tag: string): [string, ZncBlock][] {
  return [...(b.blocks.get(tag.toLowerCase()) ?? new Map()).entries()];
}

/** ZNC's boolean values: `true`, `yes`, `on`, `1`... */
export function truthy(v: string): boolean {
  return /^(true|yes|on|1)$/i.test(v.trim());
}

/** Opens a file no larger than the limit, or fails naming it. */
async function openBounded(path: string): Promise<Deno.FsFile> {
  let file: Deno.FsFile | undefined;
  try {
    file = await Deno.open(path);
    if ((await file.stat()).size > MAX_BYTES) throw new Error(`larger than ${MAX_BYTES} bytes`);
    return file;
  } catch (err) {
    file?.close();
    throw fileError(path, err);
  }
}

/**
 * Parses znc.conf. Errors name the file and the line number, never what the line holds (the
 * file has passwords in it).
 */
export async function readZncConf(path: string): Promise<ZncBlock> {
  const file = await openBounded(path);
  const root = block();
  const stack: { tag: string; name: string; block: ZncBlock }[] = [];
  let comment = false;
  let n = 0;
  const fail = (why: string) => fileError(path, `line ${n}: ${why}`);
  try {
    for await (const l of readLines(file.readable)) {
      n++;
      if (!("text" in l)) throw fail("too long");
      const line = l.text.trimStart().replace(/[\r\n]+$/, "");
      if (comment || line.startsWith("/*")) {
        comment = !line.endsWith("*/");
        continue;
      }
      if (!line || line.startsWith("#") || line.startsWith("//")) continue;
      const current = stack.at(-1)?.block ?? root;
      if (line.startsWith("<") && line.endsWith(">")) {
        const inner = line.slice(1, -1).trim();
        const space = inner.search(/\s/);
        const tag = (space === -1 ? inner : inner.slice(0, space)).toLowerCase();
        const name = space === -1 ? "" : inner.slice(space + 1).trim();
        if (tag.startsWith("/")) {
          const top = stack.pop();
          if (!top || top.tag !== tag.slice(1) || name) {
            throw fail("a closing tag that is not open");
          }
          const parent = stack.at(-1)?.block ?? root;
          let byName = parent.blocks.get(top.tag);
          if (!byName) parent.blocks.set(top.tag, byName = new Map());
          if (byName.has(top.name)) throw fail(`a second <${top.tag}> of the same name`);
          byName.set(top.name, top.block);
        } else {
          if (!name) throw fail("a block without a name");
          stack.push({ tag, name, block: block() });
        }
        continue;
      }
      const eq = line.indexOf("=");
      const name = (eq === -1 ? line : line.slice(0, eq)).trim().toLowerCase();
      let v = eq === -1 ? "" : line.slice(eq + 1);
      if (v.startsWith(" ")) v = v.slice(1);
      if (!name || !v) throw fail("not a Name = value line");
      const list = current.values.get(name);
      if (list) list.push(v);
      else current.values.set(name, [v]);
    }
  } catch (err) {
    if (err instanceof Error && err.message.startsWith("cannot import")) throw err;
    throw fileError(path, err);
  } finally {
    try {
      file.close();
    } catch { /* why: the stream closed the file already; nothing is left open */ }
  }
  if (comment) throw fileError(path, "a comment that is not closed");
  if (stack.length) throw fileError(path, `<${stack.at(-1)!.tag}> is not closed`);
  return root;
}

/** Decodes a registry word: every byte but letters and digits is written `%xx;`. */
function decodeRegistry(word: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < word.length;) {
    const m = word[i] === "%" ? /^%([0-9a-fA-F]{1,2});/.exec(word.slice(i, i + 4)) : null;
    if (m) {
      bytes.push(parseInt(m[1], 16));
      i += m[0].length;
    } else {
      for (const b of new TextEncoder().encode(word[i])) bytes.push(b);
      i++;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** A module's registry (`KEY VALUE` lines, both encoded), as ZNC's `GetNV` reads it. */
export async function readRegistry(path: string): Promise<Map<string, string>> {
  const file = await openBounded(path);
  const out = new Map<string, string>();
  try {
    for await (const l of readLines(file.readable)) {
      if (!("text" in l)) continue;
      const [key = "", v = ""] = l.text.trim().split(/ +/);
      if (key) out.set(decodeRegistry(key), decodeRegistry(v));
    }
  } catch (err) {
    throw fileError(path, err);
  }
  return out;
}
