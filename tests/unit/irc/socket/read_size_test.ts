/** The socket thread's read buffers: small while a socket waits, 64 KB through a burst. */
import { assertEquals } from "../../../support/assert.ts";
import { nextReadSize, READ_MAX, READ_MIN } from "../../../../irc/socket/read_size.ts";

Deno.test("read size: grows with reads that fill it, shrinks back when they do not", () => {
  let size = READ_MIN;
  const sizes = [];
  // A burst: every read fills its buffer.
  for (let i = 0; i < 8; i++) sizes.push(size = nextReadSize(size, size));
  assertEquals(sizes, [4096, 8192, 16384, 32768, 65536, 65536, 65536, 65536]);
  assertEquals(size, READ_MAX);
  // Live traffic: a PING, a line or two a read.
  for (let i = 0; i < 10; i++) size = nextReadSize(size, 120);
  assertEquals(size, READ_MIN);
  // A read between an eighth and all of the buffer keeps its size.
  assertEquals(nextReadSize(16384, 4000), 16384);
});
