/** bouncer/filehost.ts: the upload URL told in `soju.im/FILEHOST`, under the base URL. */
import { assertEquals } from "../../support/assert.ts";
import { FILEHOST_PATH, filehostUrl } from "../../../bouncer/filehost.ts";

Deno.test("filehost: the upload URL sits under the base URL, with or without its slash", () => {
  assertEquals(FILEHOST_PATH, "irc/upload");
  assertEquals(
    filehostUrl(new URL("https://parley.example.com")),
    "https://parley.example.com/irc/upload",
  );
  assertEquals(
    filehostUrl(new URL("https://parley.example.com/")),
    "https://parley.example.com/irc/upload",
  );
  // A base URL with a path keeps it: Parley behind a proxy at /chat.
  assertEquals(
    filehostUrl(new URL("https://example.com/chat")),
    "https://example.com/chat/irc/upload",
  );
  assertEquals(
    filehostUrl(new URL("https://example.com/chat/")),
    "https://example.com/chat/irc/upload",
  );
  assertEquals(filehostUrl(new URL("http://127.0.0.1:3000/")), "http://127.0.0.1:3000/irc/upload");
});
