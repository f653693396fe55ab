/** Numbered SQL migration files (`NNN_name.sql`), which every backend applies in order. */

/** One migration file: `NNN_name.sql`. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Reads the migration files of a folder, ordered by their number. */
export async function loadMigrations(dir: string): Promise<Migration[]> {
  const out: Migration[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const m = /^(\d+)_([\w-]+)\.sql$/.exec(entry.name);
    if (!entry.isFile || !m) continue;
    out.push({
      version: Number(m[1]),
      name: m[2],
      sql: await Deno.readTextFile(`${dir}/${entry.name}`),
    });
  }
  out.sort((a, b) => a.version - b.version);
  for (let i = 1; i < out.length; i++) {
    if (out[i].version === out[i - 1].version) {
      throw new Error(`two migrations numbered ${out[i].version}`);
    }
  }
  return out;
}
