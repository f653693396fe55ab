/** This process's threads as the kernel sees them (Linux: /proc/self/task). */

/** The nice value of each thread of this process, by thread id. */
export function niceByThread(): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of Deno.readDirSync("/proc/self/task")) {
    const stat = Deno.readTextFileSync(`/proc/self/task/${t.name}/stat`);
    // Fields after the parenthesised name; nice is the 19th of the line, the 17th after it.
    out.set(t.name, Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]));
  }
  return out;
}
