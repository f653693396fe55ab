/** PostgreSQL's errors that are the database's own failure, not the request's. */
import type { DomainError } from "../../lib/errors.ts";
import { databaseAway, diskFull } from "../failures.ts";
import { unanswered } from "./unanswered.ts";

/** SQLSTATE disk_full: a relation or a temporary file could not grow. */
const DISK_FULL = "53100";

/** The DomainError for `err` when the database failed (a full disk, no answer), else undefined. */
export function pgFailure(err: unknown): DomainError | undefined {
  if ((err as { code?: unknown } | null)?.code === DISK_FULL) return diskFull();
  if (unanswered(err)) return databaseAway();
  return undefined;
}
