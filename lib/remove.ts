/** Removing what a task leaves behind (spool files, staging folders) without hiding a failure. */
import { log } from "./log.ts";

/**
 * Removes `path` (a folder with all it holds when `recursive`). A path already gone is what was
 * wanted; any other failure is logged at warn with the path left behind, not thrown: a cleanup in
 * a `finally` must not replace the error that brought it there.
 */
export async function removeLeftover(path: string, options?: Deno.RemoveOptions): Promise<void> {
  try {
    await Deno.remove(path, options);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return;
    log.warn("could not remove a leftover; remove it by hand", { path, error: String(err) });
  }
}
