/**
 * A small ustar writer and reader, enough for Parley's backups (regular files and folders,
 * streamed, any size). Deno has no tar of its own; gzip is the platform's CompressionStream.
 */

const BLOCK = 512;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One entry of an archive. */
export interface TarEntry {
  /** Relative path with `/` separators; folders end without a slash. */
  name: string;
  type: "file" | "dir";
  size: number;
  mode: number;
  /** Seconds since the epoch. */
  mtime: number;
}

function writeString(buf: Uint8Array, offset: number, length: number, text: string) {
  const bytes = encoder.encode(text);
  if (bytes.length > length) throw new Error(`tar: "${text}" is too long for its field`);
  buf.set(bytes, offset);
}

/** An octal number field; numbers too large for it use the base-256 form (GNU, star). */
function writeNumber(buf: Uint8Array, offset: number, length: number, value: number) {
  const octal = Math.trunc(value).toString(8);
  if (octal.length < length) {
    writeString(buf, offset, length, octal.padStart(length - 1, "0"));
    return;
  }
  buf[offset] = 0x80;
  let v = BigInt(Math.trunc(value));
  for (let i = offset + length - 1; i > offset; i--) {
    buf[i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

function readNumber(buf: Uint8Array, offset: number, length: number): number {
  if (buf[offset] & 0x80) {
    let v = BigInt(buf[offset] & 0x7f);
    for (let i = offset + 1; i < offset + length; i++) v = (v << 8n) | BigInt(buf[i]);
    return Number(v);
  }
  const text = readString(buf, offset, length).trim();
  return text ? parseInt(text, 8) : 0;
}

function readString(buf: Uint8Array, offset: number, length: number): string {
  const field = buf.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return decoder.decode(end === -1 ? field : field.subarray(0, end));
}

/** The 512-byte header of an entry; long names are split into the ustar prefix. */
export function header(entry: TarEntry): Uint8Array<ArrayBuffer> {
  const buf = new Uint8Array(BLOCK);
  let name = entry.name + (entry.type === "dir" ? "/" : "");
  let prefix = "";
  if (encoder.encode(name).length > 100) {
    const cut = name.lastIndexOf("/", name.length - 2);
    prefix = name.slice(0, cut);
    name = name.slice(cut + 1);
  }
  writeString(buf, 0, 100, name);
  writeNumber(buf, 100, 8, entry.mode & 0o7777);
  writeNumber(buf, 108, 8, 0);
  writeNumber(buf, 116, 8, 0);
  writeNumber(buf, 124, 12, entry.type === "dir" ? 0 : entry.size);
  writeNumber(buf, 136, 12, entry.mtime);
  buf.fill(0x20, 148, 156); // the checksum counts its own field as spaces
  buf[156] = entry.type === "dir" ? 0x35 : 0x30;
  writeString(buf, 257, 6, "ustar");
  writeString(buf, 263, 2, "00");
  writeString(buf, 345, 155, prefix);
  const sum = buf.reduce((a, b) => a + b, 0);
  writeString(buf, 148, 8, sum.toString(8).padStart(6, "0") + "\0 ");
  return buf;
}

/** Zero bytes that round `size` up to whole blocks. */
export function padding(size: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array((BLOCK - (size % BLOCK)) % BLOCK);
}

/** The two zero blocks that end an archive. */
export const END = new Uint8Array(BLOCK * 2);

/** Reads exactly n bytes at a time from a byte stream. */
class ExactReader {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #buffer: Uint8Array = new Uint8Array(0);

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  /** The next n bytes, or fewer at the end of the stream. */
  async read(n: number): Promise<Uint8Array> {
    while (this.#buffer.length < n) {
      const { value, done } = await this.#reader.read();
      if (done) break;
      const joined = new Uint8Array(this.#buffer.length + value.length);
      joined.set(this.#buffer);
      joined.set(value, this.#buffer.length);
      this.#buffer = joined;
    }
    const out = this.#buffer.subarray(0, n);
    this.#buffer = this.#buffer.subarray(out.length);
    return out;
  }

  /** Up to n bytes: what is buffered, else the next chunk (no copying of large runs). */
  async readSome(n: number): Promise<Uint8Array> {
    if (!this.#buffer.length) {
      const { value, done } = await this.#reader.read();
      if (done) return new Uint8Array(0);
      this.#buffer = value;
    }
    const out = this.#buffer.subarray(0, n);
    this.#buffer = this.#buffer.subarray(out.length);
    return out;
  }

  cancel() {
    return this.#reader.cancel();
  }
}

/**
 * Reads an archive: calls `onEntry` for each file or folder with a function that reads the
 * file's contents in chunks (which must be read before the next entry). Other entry types
 * (links, devices) are an error: a backup never holds them.
 */
export async function readTar(
  stream: ReadableStream<Uint8Array>,
  onEntry: (entry: TarEntry, chunks: () => AsyncGenerator<Uint8Array>) => Promise<void>,
): Promise<void> {
  const input = new ExactReader(stream);
  try {
    for (;;) {
      const block = await input.read(BLOCK);
      if (block.length < BLOCK) throw new Error("the archive ends in the middle of an entry");
      if (block.every((b) => b === 0)) return;
      const stored = readNumber(block, 148, 8);
      const copy = block.slice();
      copy.fill(0x20, 148, 156);
      if (copy.reduce((a, b) => a + b, 0) !== stored) {
        throw new Error("the archive is damaged (a header checksum does not match)");
      }
      const prefix = readString(block, 345, 155);
      const name = (prefix ? `${prefix}/` : "") + readString(block, 0, 100);
      const type = String.fromCharCode(block[156] || 0x30);
      const size = readNumber(block, 124, 12);
      if (type !== "0" && type !== "5") {
        throw new Error(`the archive holds "${name}", which is not a file or a folder`);
      }
      const entry: TarEntry = {
        name: name.replace(/\/+$/, ""),
        type: type === "5" ? "dir" : "file",
        size: type === "5" ? 0 : size,
        mode: readNumber(block, 100, 8),
        mtime: readNumber(block, 136, 12),
      };
      let left = entry.size;
      const chunks = async function* () {
        while (left > 0) {
          const part = await input.readSome(left);
          if (!part.length) throw new Error(`the archive ends in the middle of ${name}`);
          left -= part.length;
          yield part;
        }
      };
      await onEntry(entry, chunks);
      for await (const _ of chunks()) { /* what the caller did not read */ }
      await input.read(padding(entry.size).length);
    }
  } finally {
    await input.cancel().catch(() => {});
  }
}
