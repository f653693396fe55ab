/** Paste against a real SQLite store and a real files folder. */
import { assert, assertEquals } from "../support/assert.ts";
import { openStore } from "../../store/mod.ts";
import { needsPaste, pasteIfLong } from "../../irc/paste.ts";

Deno.test("paste: long or multi-line messages become a text file URL", async () => {
  const dir = await Deno.makeTempDir({ prefix: "parley-paste-" });
  try {
    const store = await openStore(dir);
    const user = await store.users.create("p@example.com", "x", []);
    const deps = {
      store,
      config: { baseUrl: new URL("https://chat.example.com/parley"), maxUploadSize: 1_000_000 },
    };

    // No profile: 512 bytes and 3 lines.
    assertEquals(await pasteIfLong(deps, user.id, "irc.libera.chat", "x".repeat(512)), undefined);
    assertEquals(await pasteIfLong(deps, user.id, "irc.libera.chat", "a\nb\nc"), undefined);
    const long = "y".repeat(513);
    const url = await pasteIfLong(deps, user.id, "irc.libera.chat", long);
    assert(url?.startsWith(`https://chat.example.com/parley/file/${user.id}/`), url);
    const id = url!.split("/").pop()!;
    const file = (await store.files.get(id))!;
    assertEquals([file.name, file.type, file.size, file.writeOnly], [
      "paste.txt",
      "text/plain",
      513,
      false,
    ]);
    assertEquals(await Deno.readTextFile(`${dir}/files/${user.id}/${id}`), long);
    assert(await pasteIfLong(deps, user.id, "irc.libera.chat", "a\nb\nc\nd"), "four lines");

    // A profile for the host sets the limits.
    await store.profiles.save({
      id: "irc-libera",
      url: "irc://irc.libera.chat",
      isDefault: false,
      isForced: false,
      maxBulkMessageSize: 1,
      maxMessageLength: 40,
      serviceAccounts: [],
      webircPassword: "",
    });
    assert(await pasteIfLong(deps, user.id, "irc.libera.chat", "a\nb"), "two lines over 1");
    assert(await pasteIfLong(deps, user.id, "irc.libera.chat", "z".repeat(41)), "41 over 40");
    assertEquals(await pasteIfLong(deps, user.id, "irc.libera.chat", "z".repeat(40)), undefined);
    // Another host keeps the defaults.
    assertEquals(await pasteIfLong(deps, user.id, "irc.oftc.net", "z".repeat(41)), undefined);
    assertEquals((await store.files.page(user.id, undefined, 60)).files.length, 4);
    await store.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("paste: length is counted in UTF-8 bytes", () => {
  assertEquals(needsPaste("é".repeat(256), 512, 3), false);
  assertEquals(needsPaste("é".repeat(257), 512, 3), true);
  assertEquals(needsPaste("a\r\nb\r\nc", 512, 3), false);
});
