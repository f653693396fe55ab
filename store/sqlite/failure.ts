/** SQLite's errors that are the database's own failure, not the request's. */
import type { DomainError } from "../../lib/errors.ts";
import { diskFull } from "../failures.ts";
import { diskFailed } from "./db.ts";

/** The DomainError for `err` when the disk refused a write (full, or an I/O error), else undefined. */
export function sqliteFailure(err: unknown): DomainError | undefined {
  return diskFailed(err) ? diskFull() : undefined;
}
