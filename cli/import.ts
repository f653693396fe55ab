/** `parley import thelounge|convos DIR`: placeholder until the importers land. */
import { ConfigError } from "../config.ts";
import { IMPORT_USAGE } from "./help.ts";

/** Runs `parley import ...`. */
export function importCommand(_args: string[]): Promise<void> {
  return Promise.reject(new ConfigError(IMPORT_USAGE));
}
