/**
 * Copying an installation from one backend into another (`parley store copy`): the source backend
 * reads its tables out through a CopySource, the target writes them into its empty database.
 */

/** One table's column names and its rows, as the source stores them. */
type CopyRow = Record<string, unknown>;

/** An installation's tables and files, read for a copy. */
export interface CopySource {
  /** The source in messages ("SQLite"). */
  readonly name: string;
  /** The tables of the installation, its own bookkeeping (migrations, indexes) left out. */
  tables(): string[];
  /** The columns of `table`. */
  columns(table: string): string[];
  /** The rows of `table`, the `columns` given. */
  rows(table: string, columns: string[]): Iterable<CopyRow>;
  /** How many rows `table` holds. */
  count(table: string): number;
  /** A file's contents, or undefined when the installation has none for it. */
  fileContents(file: { user_id: number; file_id: string }): Promise<
    ReadableStream<Uint8Array> | undefined
  >;
  close(): void;
}

/** What was copied: rows per table, both sides counted after the copy. */
export interface CopyReport {
  tables: { table: string; source: number; target: number }[];
  /** Tables of the source that have no counterpart in the target. */
  skipped: string[];
  /** Files whose contents the source did not have (kept without contents): `<uid>/<file id>`. */
  missing: string[];
}
