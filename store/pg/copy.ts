/**
 * Copies an installation (SQLite's, read through its CopySource) into an empty PostgreSQL
 * database: the upgrade path from one machine to several nodes (`parley store copy --to
 * postgres://...`).
 *
 * Table by table, the columns both schemas have, in batches; ids are kept (messages, files and
 * sessions refer to them) and each serial sequence is moved past the copied ids. What the source
 * keeps only for its own search index stays behind (the source leaves it out): PostgreSQL's index
 * is a column, filled here from the text.
 */
import type postgres from "postgres";
import { DomainError } from "../../lib/errors.ts";
import type { CopyReport, CopySource } from "../copy.ts";
import { migratePg, pgString, type Sql } from "./db.ts";
import { messageWords } from "./tsquery.ts";
import { refillVocabulary } from "./vocabulary.ts";
import { writeBlob } from "./files.ts";

/** Tables in the order their references need (a row's parent first). */
const ORDER = [
  "users",
  "sessions",
  "settings",
  "connection_profiles",
  "connections",
  "conversations",
  "messages",
  "notification_reads",
  "files",
  "push_subscriptions",
  "push_prefs",
  "ignores",
];
/** Rows per INSERT: PostgreSQL takes at most 65,535 parameters in one statement. */
const MAX_PARAMS = 60_000;

/** Copies one file's contents, once its row exists in PostgreSQL. */
type FileContentCopier = (file: { user_id: number; file_id: string; seq: number }) => Promise<void>;

/**
 * Copies the contents the source keeps of each file into PostgreSQL's blobs. A file without
 * contents keeps its row without them (served as empty) and is listed in `missing`.
 */
function fileContentCopier(sql: Sql, source: CopySource) {
  const missing: string[] = [];
  const copy: FileContentCopier = async (file) => {
    const content = await source.fileContents(file);
    if (!content) {
      missing.push(`${file.user_id}/${file.file_id}`);
      return;
    }
    const { blob } = await writeBlob(sql, content, Number.MAX_SAFE_INTEGER);
    await sql.begin(async (tx) => {
      await tx`UPDATE files SET blob = ${blob} WHERE seq = ${file.seq}`;
      await tx`DELETE FROM file_uploads WHERE blob = ${blob}`;
    });
  };
  return { copy, missing };
}

interface PgColumn {
  name: string;
  type: string;
}

async function pgColumns(sql: Sql, table: string): Promise<PgColumn[]> {
  const rows = await sql<{ column_name: string; data_type: string }[]>`
    SELECT column_name, data_type FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = ${table} ORDER BY ordinal_position`;
  return rows.map((r) => ({ name: r.column_name, type: r.data_type }));
}

/** A value the PostgreSQL client takes. */
type Value = postgres.ParameterOrJSON<never>;

/** A source's value (SQLite's: flags as integers, JSON as text) as the PostgreSQL column wants. */
function convert(value: unknown, type: string): Value {
  if (value === null || value === undefined) return null;
  if (type === "boolean") return value !== 0 && value !== 0n && value !== "0";
  if (type === "jsonb" || type === "json") {
    return (typeof value === "string" ? JSON.parse(value) : value) as Value;
  }
  if (typeof value === "string") return pgString(value);
  if (typeof value === "bigint") return Number(value);
  return value as Value;
}

/** Whether the PostgreSQL database holds no user yet (the copy refuses to merge). */
async function isEmpty(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM users`;
  return row.n === 0;
}

/**
 * Copies `source` into the PostgreSQL database of `sql` (migrated first), which must hold no user,
 * with each file's contents. Throws a DomainError `conflict` when PostgreSQL already holds data,
 * and when a count differs afterwards.
 */
export async function copyIntoPg(
  sql: Sql,
  source: CopySource,
  progress: (table: string, rows: number) => void = () => {},
): Promise<CopyReport> {
  await migratePg(sql);
  if (!(await isEmpty(sql))) {
    throw new DomainError("conflict", "The PostgreSQL database already holds users.");
  }
  const present = new Set(source.tables());
  const tables = [
    ...ORDER.filter((t) => present.has(t)),
    ...[...present].filter((t) => !ORDER.includes(t)).sort(),
  ];
  const fileContents = fileContentCopier(sql, source);
  const report: CopyReport = { tables: [], skipped: [], missing: fileContents.missing };
  for (const table of tables) {
    const target = await pgColumns(sql, table);
    if (!target.length) {
      report.skipped.push(table);
      continue;
    }
    const have = new Set(source.columns(table));
    const columns = target.filter((c) => have.has(c.name));
    const words = table === "messages" && target.some((c) => c.name === "words");
    const names = [...columns.map((c) => c.name), ...(words ? ["words"] : [])];
    const perBatch = Math.max(1, Math.floor(MAX_PARAMS / names.length));
    let batch: Record<string, Value>[] = [];
    let copied = 0;
    const flush = async () => {
      if (!batch.length) return;
      const rows = batch;
      batch = [];
      await sql`INSERT INTO ${sql(table)} ${sql(rows, names)}`;
      copied += rows.length;
      progress(table, copied);
      if (table === "files") {
        for (const r of rows) {
          await fileContents.copy(
            r as unknown as { user_id: number; file_id: string; seq: number },
          );
        }
      }
    };
    for (const raw of source.rows(table, columns.map((c) => c.name))) {
      const row: Record<string, Value> = {};
      for (const c of columns) row[c.name] = convert(raw[c.name], c.type);
      if (words) {
        row.words = messageWords(String(raw.text ?? ""), Number(raw.type), {
          userId: Number(raw.user_id),
          conversation: Number(raw.conversation),
          id: Number(raw.id),
        });
      }
      batch.push(row);
      if (batch.length >= perBatch) await flush();
    }
    await flush();
    // The words of the copied messages, for prefix searches (store/pg/vocabulary.ts).
    if (words) await refillVocabulary(sql);
    await moveSequences(sql, table, target);
    const [{ n }] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM ${sql(table)}`;
    const count = source.count(table);
    report.tables.push({ table, source: count, target: n });
    if (n !== count) {
      throw new DomainError(
        "conflict",
        `${table}: ${count} rows in ${source.name} but ${n} in PostgreSQL after the copy.`,
      );
    }
  }
  return report;
}

/** Moves every serial sequence of `table` past the ids just copied, so new rows do not collide. */
async function moveSequences(sql: Sql, table: string, columns: PgColumn[]): Promise<void> {
  for (const c of columns) {
    const [seq] = await sql<{ s: string | null }[]>`
      SELECT pg_get_serial_sequence(${table}, ${c.name}) AS s`;
    if (!seq?.s) continue;
    await sql.unsafe(
      `SELECT setval($1, coalesce((SELECT max("${c.name}") FROM "${table}"), 0) + 1, false)`,
      [seq.s],
    );
  }
}
