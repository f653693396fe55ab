/**
 * A small disk of a test's own, to fill under a running daemon: a tmpfs mounted at a temporary
 * folder. Mounting needs Linux and root (as the test runner has on CI); `canMount` says whether
 * this run can, for a test's `ignore`.
 */

export const canMount = Deno.build.os === "linux" && Deno.uid() === 0;

async function run(cmd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command(cmd, { args, stdout: "null", stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/**
 * Runs `fn` with a fresh tmpfs of `size` (as mount says it: `"24m"`) at a folder under /tmp, owned
 * by `owner` (`user:group`) when given; unmounts and removes it after, whatever `fn` did.
 */
export async function withSmallDisk<T>(
  size: string,
  fn: (dir: string) => Promise<T>,
  owner?: string,
): Promise<T> {
  // Under /tmp: a server running as another user (PostgreSQL's) must reach the folder.
  const dir = await Deno.makeTempDir({ dir: "/tmp", prefix: "parley-small-disk-" });
  try {
    await run("mount", "-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", dir);
    try {
      if (owner) await run("chown", owner, dir);
      return await fn(dir);
    } finally {
      await run("umount", dir);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Writes a file at `path` until its file system has no room left. */
export async function fillDisk(path: string): Promise<void> {
  const file = await Deno.open(path, { write: true, create: true });
  const chunk = new Uint8Array(64 * 1024);
  try {
    for (;;) await file.write(chunk);
  } catch {
    // why: ENOSPC is what this is for
  } finally {
    file.close();
  }
}
