/**
 * Runs a real ZNC (Debian's package) on a data folder the test prepares, so that the folder
 * `parley import znc` reads is one ZNC itself wrote: its config rewritten, its module data, its logs.
 */
import { ensureTools, ZNC } from "../../scripts/system_deps.ts";
import { freePort } from "./ports.ts";

/** A running ZNC. */
export interface ZncServer {
  /** The data folder (`--datadir`). */
  dir: string;
  /** The port IRC clients attach to (plain, 127.0.0.1). */
  port: number;
  output(): string;
  /** Stops it with SIGTERM (ZNC saves its config) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Writes `configs/znc.conf` in a new data folder, with a listener on a free port before
 * `users` (the `<User>` blocks), and starts ZNC in the foreground on it; resolves once the
 * listener takes connections.
 */
export async function startZnc(users: string, globals = ""): Promise<ZncServer> {
  const [bin] = await ensureTools([ZNC]);
  const dir = await Deno.makeTempDir({ prefix: "parley-znc-" });
  const port = freePort();
  await Deno.mkdir(`${dir}/configs`);
  await Deno.writeTextFile(
    `${dir}/configs/znc.conf`,
    `Version = 1.8.2
ConnectDelay = 0
ServerThrottle = 0
${globals}
<Listener l>
\tPort = ${port}
\tIPv4 = true
\tIPv6 = false
\tSSL = false
\tHost = 127.0.0.1
\tAllowWeb = false
</Listener>
${users}
`,
  );
  let argv = [bin, "--datadir", dir, "--foreground", "--no-color"];
  // As root ZNC waits 30 s before it starts: it runs as `nobody` then, owning its folder.
  if (Deno.uid?.() === 0) {
    await chownTree(dir, 65534, 65534);
    argv = ["runuser", "-u", "nobody", "--", ...argv];
  }
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  const decoder = new TextDecoder();
  const reading = [child.stdout, child.stderr].map(async (stream) => {
    for await (const chunk of stream) out += decoder.decode(chunk, { stream: true });
  });
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (exited) throw new Error(`znc exited at start:\n${out}`);
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`znc did not listen on ${port}:\n${out}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    dir,
    port,
    output: () => out,
    async stop() {
      if (!exited) child.kill("SIGTERM");
      await status;
      await Promise.all(reading);
    },
  };
}

async function chownTree(path: string, uid: number, gid: number): Promise<void> {
  await Deno.chown(path, uid, gid);
  for await (const e of Deno.readDir(path)) {
    if (e.isDirectory) await chownTree(`${path}/${e.name}`, uid, gid);
    else await Deno.chown(`${path}/${e.name}`, uid, gid);
  }
}
