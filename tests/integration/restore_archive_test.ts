/**
 * `parley restore` of archives `parley backup` did not write: a backup re-packed with GNU tar
 * (long names, PAX headers) restores; one that would expand hugely, or past the free space, or
 * holds a damaged database, is refused and leaves the data folder as it was.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { parley } from "../support/cli.ts";

/** Runs a system command, failing the test when it fails. */
async function run(cmd: string, args: string[], cwd?: string): Promise<void> {
  const out = await new Deno.Command(cmd, { args, cwd, stderr: "piped" }).output();
  assert(out.success, `${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

/** What is in a data folder besides its lock file (staging folders included). */
async function leftIn(home: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(home)) if (e.name !== "parley.lock") names.push(e.name);
  return names.sort();
}

/** One ustar header; sizes past the octal field use the base-256 form, as GNU tar does. */
function ustarHeader(name: string, size: number): Uint8Array<ArrayBuffer> {
  const h = new Uint8Array(512);
  const put = (at: number, text: string) => h.set(new TextEncoder().encode(text), at);
  put(0, name);
  put(100, "0000600\0");
  put(108, "0000000\0");
  put(116, "0000000\0");
  h[124] = 0x80;
  let v = BigInt(size);
  for (let i = 135; i > 124; i--) {
    h[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  put(136, "00000000000\0");
  h.fill(0x20, 148, 156);
  h[156] = 0x30;
  put(257, "ustar\x0000");
  const sum = h.reduce((a, b) => a + b, 0);
  put(148, sum.toString(8).padStart(6, "0") + "\0 ");
  return h;
}

/** Gzips `parts` into `path`. */
async function gzip(path: string, parts: Iterable<Uint8Array<ArrayBuffer>>) {
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  await ReadableStream.from(parts).pipeThrough(new CompressionStream("gzip")).pipeTo(
    file.writable,
  );
}

Deno.test("restore: GNU and PAX archives restore; hostile ones leave nothing behind", async (t) => {
  const work = await Deno.makeTempDir({ prefix: "parley-restore-" });
  const home = `${work}/home`;
  const backup = `${work}/backup.tar.gz`;
  try {
    await Deno.mkdir(home, { mode: 0o700 });
    const add = await parley(["user", "add", "keeper@example.org"], {
      env: { PARLEY_HOME: home },
      stdin: "correct horse battery\n",
    });
    assertEquals(add.code, 0, add.stderr);
    const made = await parley(["backup", backup], { env: { PARLEY_HOME: home } });
    assertEquals(made.code, 0, made.stderr);

    // The backup unpacked, with an upload whose path is longer than ustar's 100 + 155 bytes
    // and not ASCII (GNU tar writes a long-name entry; the PAX format a path record).
    const tree = `${work}/tree`;
    await Deno.mkdir(tree);
    await run("tar", ["xzf", backup, "-C", tree]);
    const longDir = `files/${"d".repeat(120)}/${"é".repeat(40)}`;
    const longName = `${longDir}/${"n".repeat(150)}.txt`;
    await Deno.mkdir(`${tree}/${longDir}`, { recursive: true });
    await Deno.writeTextFile(`${tree}/${longName}`, "a long way down");
    const members = ["parley-backup.json", "parley.db", "secret", "vapid.json", "files"]
      .filter((n) => {
        try {
          Deno.statSync(`${tree}/${n}`);
          return true;
        } catch {
          return false;
        }
      });

    for (const format of ["gnu", "pax"]) {
      await t.step(`a backup re-packed by GNU tar --format=${format} restores`, async () => {
        const repacked = `${work}/${format}.tar.gz`;
        await run("tar", [`--format=${format}`, "-czf", repacked, ...members], tree);
        const target = `${work}/restored-${format}`;
        const r = await parley(["restore", repacked], { env: { PARLEY_HOME: target } });
        assertEquals(r.code, 0, r.stderr);
        assertEquals(await Deno.readTextFile(`${target}/${longName}`), "a long way down");
        assertEquals(
          await Deno.readTextFile(`${target}/secret`),
          await Deno.readTextFile(`${home}/secret`),
        );
        assertEquals(
          await leftIn(target),
          members.filter((n) => n !== "parley-backup.json").sort(),
        );
      });
    }

    const manifest = await Deno.readFile(`${tree}/parley-backup.json`);
    const pad = (n: number) => new Uint8Array((512 - (n % 512)) % 512);

    await t.step(
      "an archive that expands hugely is refused before anything is written",
      async () => {
        // 200 MB of zeros: about 200 KB once compressed, far past 50 times that.
        const size = 200 * 1024 * 1024;
        const bomb = `${work}/bomb.tar.gz`;
        await gzip(
          bomb,
          (function* () {
            yield ustarHeader("parley-backup.json", manifest.length);
            yield manifest;
            yield pad(manifest.length);
            yield ustarHeader("parley.db", size);
            for (let i = 0; i < size / (1024 * 1024); i++) yield new Uint8Array(1024 * 1024);
            yield new Uint8Array(1024);
          })(),
        );
        assert((await Deno.stat(bomb)).size < 1024 * 1024);
        const target = `${work}/bombed`;
        const r = await parley(["restore", bomb], { env: { PARLEY_HOME: target } });
        assertEquals(r.code, 2, r.stderr);
        assertStringIncludes(r.stderr, "would expand to more than");
        assertStringIncludes(r.stderr, "nothing was written");
        assertEquals(await leftIn(target), []);
      },
    );

    await t.step(
      "an archive larger than the free space is refused, --max-size or not",
      async () => {
        // A header claiming a petabyte: refused at the header, its contents never read.
        const huge = `${work}/huge.tar.gz`;
        await gzip(huge, [
          ustarHeader("parley-backup.json", manifest.length),
          manifest,
          pad(manifest.length),
          ustarHeader("parley.db", 2 ** 50),
          new Uint8Array(4096),
        ]);
        const target = `${work}/huge`;
        const r = await parley(["restore", huge, "--max-size", String(2 ** 52)], {
          env: { PARLEY_HOME: target },
        });
        assertEquals(r.code, 2, r.stderr);
        assertStringIncludes(r.stderr, "free on the data folder's file system");
        assertEquals(await leftIn(target), []);
      },
    );

    await t.step(
      "a damaged database is refused after writing, and the folder is emptied",
      async () => {
        const damaged = `${work}/damaged.tar.gz`;
        const junk = new TextEncoder().encode("not a database ".repeat(1000));
        await gzip(damaged, [
          ustarHeader("parley-backup.json", manifest.length),
          manifest,
          pad(manifest.length),
          ustarHeader("parley.db", junk.length),
          junk,
          pad(junk.length),
          new Uint8Array(1024),
        ]);
        const target = `${work}/damaged`;
        const r = await parley(["restore", damaged], { env: { PARLEY_HOME: target } });
        assertEquals(r.code, 2, r.stderr);
        assertStringIncludes(r.stderr, "is damaged");
        assertEquals(await leftIn(target), []);
      },
    );
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
