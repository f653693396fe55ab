/**
 * Uploaded files: their records and the interface of their store (written once for every
 * backend in store/tables/files.ts, over each backend's contents).
 */
import { underBaseUrl } from "../lib/base_url.ts";

/** A file as stored. */
export interface FileRecord {
  /** Insertion order, for paging. */
  seq: number;
  /** The API's file id. */
  id: string;
  userId: number;
  name: string;
  size: number;
  /** The media type it was uploaded with (or guessed from its name). */
  type: string;
  writeOnly: boolean;
  /** Microseconds. */
  saved: number;
}

/** What `save` is given besides the contents. */
interface NewFile {
  userId: number;
  name: string;
  type: string;
  writeOnly: boolean;
  /**
   * Replace the contents of this existing file of the user; when no file has this id yet, it is
   * created with it (a key stored by a client under a name of its choosing, as in Convos).
   */
  replace?: string;
}

/** One page of a user's files (see `FileStore.page`). */
export interface FilePage {
  files: FileRecord[];
  /** The cursor that returns this page again; absent on the first page. */
  after?: string;
  /** The cursor of the previous (newer) page; absent on the first page. */
  prev?: string;
  /**
   * The first file of the next (older) page, absent on the last page: a flag, as in Convos. The
   * next page's cursor is the last file of this one.
   */
  next?: string;
}

/**
 * The public URL of a file, under the external base URL (which may have a path). Convos's form,
 * `/file/<uid>/<id>` (web-files.t:34): scripts and clients written for Convos recognise it, and
 * it redirects to the API's URL of the file (routes/web.ts).
 */
export function fileUrl(baseUrl: URL, file: Pick<FileRecord, "userId" | "id">): string {
  return underBaseUrl(baseUrl, `file/${file.userId}/${file.id}`).href;
}

/** Thrown by `save` when the contents exceed the limit; nothing of them is left stored. */
export class FileTooLargeError extends Error {}

/**
 * Thrown by `save` when the user's files would take more than the server's
 * `max_file_bytes_per_user`; nothing of the new one is left stored.
 */
export class FileQuotaError extends Error {
  constructor(readonly quota: number, readonly wouldTake: number) {
    super(
      `Your files may take at most ${quota} bytes, and this one would make ${wouldTake}: delete some first.`,
    );
  }
}

/** Thrown by `page` for a cursor that names no file of the user. */
export class UnknownCursorError extends Error {}

/** What a user's files take, and the most they may take (0: no bound). */
interface FileUsage {
  bytes: number;
  max: number;
}

/** The literal cursors `after` and `prev` both name the first (newest) page. */
export const FIRST_PAGE = "after";

/** Storage of uploaded files. */
export interface FileStore {
  /**
   * Streams `content` to storage (at most `maxBytes`) and records it; throws FileTooLargeError,
   * or FileQuotaError past the user's bound (a replaced file's old contents not counted).
   */
  save(file: NewFile, content: ReadableStream<Uint8Array>, maxBytes: number): Promise<FileRecord>;
  /** A file by its id, whoever owns it (a random id; a chosen one may name several). */
  get(id: string): Promise<FileRecord | undefined>;
  /** One user's file by its id. */
  find(userId: number, id: string): Promise<FileRecord | undefined>;
  /** A file's contents, as a stream. */
  open(file: FileRecord): Promise<ReadableStream<Uint8Array>>;
  /**
   * A page of the user's files, newest first. `cursor` is absent, `after` or `prev` for the first
   * page, or the id of the file just before the wanted page (the last of the page before).
   */
  page(userId: number, cursor: string | undefined, limit: number): Promise<FilePage>;
  /** What the user's files take together, against the server's bound. */
  usage(userId: number): Promise<FileUsage>;
  /** Deletes those of `ids` that belong to the user; returns how many were deleted. */
  remove(userId: number, ids: string[]): Promise<number>;
  /** Deletes every file of a user (before the user is deleted). */
  removeUser(userId: number): Promise<void>;
}
