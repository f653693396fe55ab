/** irc/protocol/text.ts: UTF-8 lines as they are, a Latin-1 line read as Windows-1252. */
import { assertEquals } from "../../../support/assert.ts";
import { linesText, lineText } from "../../../../irc/protocol/text.ts";

const bytes = (...parts: (string | number[])[]) =>
  new Uint8Array(
    parts.flatMap((p) => typeof p === "string" ? [...new TextEncoder().encode(p)] : p),
  );

Deno.test("irc text: UTF-8 as it is, a line that is not UTF-8 as Windows-1252", () => {
  assertEquals(lineText(bytes("café ✓")), "café ✓");
  assertEquals(lineText(bytes("caf", [0xe9], " na", [0xef], "ve ", [0xa3, 0x80])), "café naïve £€");
  // A line mixing both is read as Windows-1252 whole, as a client's fallback reads it.
  assertEquals(lineText(bytes("é", [0xe9])), "Ã©é");
});

Deno.test("irc text: one Latin-1 line among UTF-8 ones changes no other", () => {
  const chunk = bytes(
    "PRIVMSG #a :ünï\r\n",
    "PRIVMSG #a :caf",
    [0xe9],
    "\r\n",
    "PRIVMSG #a :✓\r\n",
  );
  assertEquals(linesText(chunk), "PRIVMSG #a :ünï\r\nPRIVMSG #a :café\r\nPRIVMSG #a :✓\r\n");
  assertEquals(linesText(bytes("all ✓\n")), "all ✓\n");
});
