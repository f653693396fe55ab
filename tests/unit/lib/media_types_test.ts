/** The media type recorded for an upload, and how it is served. */
import { assertEquals } from "../../support/assert.ts";
import { looksLikeText, mediaType, servedAs, typeOfExtension } from "../../../lib/media_types.ts";

const enc = new TextEncoder();
const bytes = (...b: number[]) => new Uint8Array(b);

Deno.test("text detection refuses control bytes but tab, CR and LF", () => {
  assertEquals(looksLikeText(enc.encode("a\tb\r\nc\n")), true);
  assertEquals(looksLikeText(enc.encode("grüße 😀\n")), true);
  assertEquals(looksLikeText(enc.encode("cut in the middle: ü").slice(0, -1)), true);
  for (const b of [0x00, 0x01, 0x07, 0x08, 0x0b, 0x0c, 0x1b, 0x1f, 0x7f]) {
    assertEquals(looksLikeText(bytes(0x41, b, 0x0a)), false, `byte ${b}`);
  }
  assertEquals(looksLikeText(bytes(0x41, 0xff, 0x0a)), false, "not UTF-8");
});

Deno.test("an upload's type: declared, else the extension, else the bytes of a name without one", () => {
  // Convos's binary.bin (01 0A), as a form part without a type of its own.
  assertEquals(
    mediaType("text/plain", "binary.bin", bytes(0x01, 0x0a)),
    "application/octet-stream",
  );
  assertEquals(mediaType("", "noext", bytes(0x01, 0x0a)), "application/octet-stream");
  assertEquals(mediaType("", "README", enc.encode("hello\n")), "text/plain");
  // An extension Parley does not know is never taken for text, whatever the bytes.
  assertEquals(mediaType("", "notes.qqq", enc.encode("hello\n")), "application/octet-stream");
  assertEquals(
    mediaType("application/octet-stream", "x.zzz", enc.encode("hi")),
    "application/octet-stream",
  );
  assertEquals(mediaType("", "a.TXT", bytes(0x01)), "text/plain");
  assertEquals(mediaType("", "photo.jpg"), "image/jpeg");
  assertEquals(mediaType("image/png; x=y", "photo.jpg"), "image/png");
  assertEquals(mediaType("", "server.log"), "text/plain");
  assertEquals(mediaType("", "page.html"), "text/html");
  assertEquals(typeOfExtension("svg"), "image/svg+xml", "no parameters");
  assertEquals(typeOfExtension(""), undefined);
});

Deno.test("only types that cannot run are shown inline", () => {
  assertEquals(servedAs("application/octet-stream"), {
    type: "application/octet-stream",
    inline: false,
  });
  assertEquals(servedAs("text/plain"), { type: "text/plain", inline: true });
  assertEquals(servedAs("image/svg+xml"), { type: "image/svg+xml", inline: false });
  assertEquals(servedAs("text/javascript"), { type: "application/octet-stream", inline: false });
});
