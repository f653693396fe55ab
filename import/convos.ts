/** placeholder */
import type { ImportSession } from "./common.ts";
export function importConvos(_s: ImportSession, _dir: string): Promise<void> {
  return Promise.resolve();
}
