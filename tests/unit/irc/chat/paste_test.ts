/** Paste against a real SQLite store and a real files folder. */
import { assert, assertEquals } from "../../../support/assert.ts";
import { openStore } from "../../../../store/mod.ts";
import { needsPaste, pasteIfLong, pasteLine } from "../../../../irc/chat/paste.ts";

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
    const line = await pasteIfLong(deps, user.id, "irc.libera.chat", long);
    // The first line (cut), the size, then the link.
    assert(line?.startsWith("y".repeat(100) + "… (513 B) https://"), line);
    const url = line!.split(" ").at(-1);
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

    // Past the user's bound in bytes (the server setting): refused at the message, not kept.
    const used = (await store.files.page(user.id, undefined, 60)).files
      .reduce((n, f) => n + f.size, 0);
    await store.settings.set({ max_file_bytes_per_user: used + 100 });
    const err = await pasteIfLong(deps, user.id, "irc.oftc.net", "q".repeat(600)).catch((e) => e);
    assertEquals([err?.kind, err?.path, err?.message], [
      "invalid",
      "/body/message",
      `Your files may take at most ${used + 100} bytes, and this one would make ${
        used + 600
      }: delete some first.`,
    ]);
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

Deno.test("paste: the line sent is the first line, the size and the link", () => {
  const url = "https://x.example/file/1/abc";
  assertEquals(pasteLine("short\nsecond\nthird", url), `short… (3 lines, 18 B) ${url}`);
  assertEquals(pasteLine("\n\n  first words \nmore", url), `first words… (4 lines, 21 B) ${url}`);
  assertEquals(pasteLine("é".repeat(300), url), `${"é".repeat(100)}… (600 B) ${url}`);
  assertEquals(pasteLine("just long enough", url), `just long enough (16 B) ${url}`);
});
