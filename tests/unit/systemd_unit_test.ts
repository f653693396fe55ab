/**
 * The systemd units Parley ships (deploy/): docs/deployment.md shows each one as it is in the file,
 * `systemd-analyze verify` finds nothing wrong, and `systemd-analyze security --offline=yes` scores
 * each under 2.0 (docs/deployment.md gives the score and the command). Without systemd-analyze
 * (a machine without systemd) those two checks are skipped, saying so.
 */
import { join } from "node:path";
import { assert, assertEquals } from "../support/assert.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
/** The unit files, each shown whole in docs/deployment.md. */
const UNITS = ["deploy/parley.service", "deploy/parley-checkout.service"];
/** The exposure every unit stays under (`systemd-analyze security`: 0 safe to 10 unsafe). */
const MOST_EXPOSURE = 2.0;

/** The ```ini blocks of docs/deployment.md. */
function docBlocks(): string[] {
  const doc = Deno.readTextFileSync(join(ROOT, "docs/deployment.md"));
  return [...doc.matchAll(/^```ini\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

function analyzer(): string | undefined {
  for (const p of ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"]) {
    try {
      if (Deno.statSync(p).isFile) return p;
    } catch { /* not here */ }
  }
  return undefined;
}

/**
 * A copy of the unit in a folder of its own, its programs replaced by one that exists here
 * (verify checks that ExecStart's program is there), under the unit's own name.
 */
async function unitCopy(file: string): Promise<{ path: string; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "parley-unit-" });
  const text = Deno.readTextFileSync(join(ROOT, file))
    .replaceAll("/usr/local/bin/parley", Deno.execPath())
    .replaceAll("/usr/local/bin/deno", Deno.execPath());
  const path = join(dir, file.split("/").pop()!);
  await Deno.writeTextFile(path, text);
  return { path, dir };
}

async function run(cmd: string, args: string[]) {
  const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { ok: out.success, stdout: text(out.stdout), stderr: text(out.stderr) };
}

Deno.test("docs/deployment.md shows each unit file as it is", () => {
  const blocks = docBlocks();
  for (const file of UNITS) {
    const text = Deno.readTextFileSync(join(ROOT, file));
    assert(blocks.includes(text), `${file} differs from its block in docs/deployment.md`);
  }
});

for (const file of UNITS) {
  Deno.test(`${file}: systemd-analyze verify, and security under ${MOST_EXPOSURE}`, async (t) => {
    const bin = analyzer();
    if (!bin) {
      console.log(`skipped: no systemd-analyze here (Debian package systemd) to check ${file}`);
      await t.step({ name: "skipped: systemd-analyze is not installed", ignore: true, fn() {} });
      return;
    }
    const { path, dir } = await unitCopy(file);
    try {
      const verify = await run(bin, ["verify", path]);
      assert(verify.ok, `verify failed:\n${verify.stderr}`);
      assertEquals(verify.stderr.trim(), "", "verify says nothing");
      const security = await run(bin, ["security", "--offline=yes", "--no-pager", path]);
      const m = /Overall exposure level for \S+: (\d+(?:\.\d+)?)/.exec(security.stdout);
      assert(m, `no score in:\n${security.stdout}\n${security.stderr}`);
      const score = Number(m[1]);
      assert(score < MOST_EXPOSURE, `exposure ${score}:\n${security.stdout}`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}
