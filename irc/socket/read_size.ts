/**
 * The size of a socket's read buffer. A pending read holds its buffer, and most IRC sockets wait
 * with nothing to read, so an idle socket holds a small one (a large buffer per socket would be
 * most of the socket thread's memory with thousands of connections). A buffer a read fills is
 * doubled for the next read, up to 64 KB; one that a read used less than an eighth of is halved,
 * down to 2 KB.
 */

/**
 * Largest read: a burst is read 64 KB at a time.
 *
 * @internal test seam
 */
export const READ_MAX = 64 * 1024;
/** Smallest read, and the first. */
export const READ_MIN = 2 * 1024;

/** The size of the next read's buffer after a read of `n` bytes into one of `size`. */
export function nextReadSize(size: number, n: number): number {
  if (n === size) return Math.min(READ_MAX, size * 2);
  if (n < size / 8) return Math.max(READ_MIN, size / 2);
  return size;
}
