/**
 * Starts a real ircd-hybrid on a free loopback port: the second IRC server of the scale benches,
 * which keeps up with thousands of clients where ngircd's loops over all of them slow it down.
 */
import { serverProcess } from "./server_process.ts";
import { createSocket, type Socket } from "node:dgram";
import { ensureTools, IRCD_HYBRID, IRCD_HYBRID_ROOT } from "../../scripts/system_deps.ts";
import type { IrcServer } from "./ngircd.ts";
import { freePort } from "./ports.ts";

/** Where the package's modules are, and where the daemon looks for them. */
const MODULES = "/usr/lib/ircd-hybrid";
/** Open files asked for the daemon: one per client; hybrid goes no higher than 65535 anyway. */
const OPEN_FILES = 65535;
/** Clients hybrid admits, at most: the benches run 10,000 Parley connections and a few others. */
const MAX_CLIENTS = 20_000;
/**
 * Channels one client may be in: a bench connection joins a few, but the scale observer sits in
 * every bench channel (100 by default) and the fan-out's.
 */
const MAX_CHANNELS = 1000;
/** Files hybrid keeps for itself out of its open files limit (its LEAKED_FDS + MAX_BUFFER). */
const RESERVED_FILES = 70;
/** Raises the hard open files limit as far as the system lets this shell, and the soft one to it. */
const RAISE = `ulimit -Hn ${OPEN_FILES} 2>/dev/null; ulimit -Sn "$(ulimit -Hn)"`;

/** The hard open files limit a child gets once RAISE has run. */
async function openFilesLimit(): Promise<number> {
  const out = await new Deno.Command("sh", { args: ["-c", `${RAISE}; ulimit -Hn`] }).output();
  const n = Number(new TextDecoder().decode(out.stdout).trim());
  return Number.isFinite(n) ? n : OPEN_FILES; // "unlimited"
}

/**
 * The configuration, for thousands of clients from 127.0.0.1 at once:
 * - one class with no per-IP, per-CIDR or total limit, and an auth block that lets everyone
 *   exceed class limits and flood (hybrid parses five lines a second of a client past its first
 *   forty otherwise);
 * - no ident lookups, no connect throttle, no message or join flood counts;
 * - no pause between LUSERS, WHO or MOTD asked by anyone (hybrid answers one a second, or ten
 *   seconds, server-wide; the bench's observer asks LUSERS twice a second);
 * - a big sendq, since a client in every bench channel hears every join;
 * - a ping every 120 s, as ngircd's; room for MAX_CHANNELS channels per client.
 */
function config(dir: string, port: number, maxClients: number): string {
  return `serverinfo {
  name = "irc.parley.test";
  description = "Parley test server";
  network_name = "parley";
  network_description = "Parley test network";
  hub = no;
  default_max_clients = ${maxClients};
  max_nick_length = 30;
  max_topic_length = 300;
};
admin {
  name = "Parley tests";
  description = "localhost";
  email = "<root@localhost>";
};
class {
  name = "users";
  ping_time = 120 seconds;
  number_per_ip_local = 0;
  number_per_ip_global = 0;
  max_number = 0;
  number_per_cidr = 0;
  sendq = 64 megabytes;
  recvq = 8000 bytes;
  max_channels = ${MAX_CHANNELS};
};
listen {
  host = "127.0.0.1";
  port = ${port};
};
auth {
  user = "*@*";
  class = "users";
  flags = exceed_limit, can_flood, no_tilde;
};
exempt {
  ip = "127.0.0.0/8";
};
channel {
  max_channels = ${MAX_CHANNELS};
  default_join_flood_count = 0;
  default_join_flood_time = 0 seconds;
  disable_fake_channels = no;
};
serverhide {
  flatten_links_file = "${dir}/links.txt";
};
general {
  disable_auth = yes;
  throttle_count = 0;
  throttle_time = 0 seconds;
  default_floodcount = 0;
  anti_nick_flood = no;
  invisible_on_connect = no;
  ping_cookie = no;
  pace_wait = 0 seconds;
  pace_wait_simple = 0 seconds;
  max_targets = 999;
  warn_no_connect_block = no;
  whowas_history_length = 100;
};
modules {
  path = "${MODULES}/modules";
  path = "${MODULES}/modules/autoload";
};
log {
  use_logging = yes;
  file {
    type = user;
    name = "${dir}/user.log";
    size = unlimited;
  };
};
`;
}

/**
 * A name server that answers every question "no such name" at once, on port 53 of a loopback
 * address of its own. hybrid looks up the name of each client's address and has no setting to
 * skip it; the system's resolver may be slow or drop queries under thousands of connects, and
 * each unanswered one holds a registration for up to 12 s.
 */
async function startNoDns(): Promise<{ address: string; socket: Socket }> {
  for (let attempt = 0;; attempt++) {
    const octet = () => 1 + Math.floor(Math.random() * 250);
    const address = `127.${octet()}.${octet()}.${octet()}`;
    const socket = createSocket("udp4");
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once("error", reject);
        socket.bind(53, address, () => {
          socket.off("error", reject);
          resolve();
        });
      });
    } catch (err) {
      socket.close();
      if (attempt >= 5) throw err;
      continue;
    }
    socket.on("message", (query: Uint8Array, from: { address: string; port: number }) => {
      if (query.length < 12) return;
      const reply = new Uint8Array(query);
      // A response (QR) to the same id and question, with its opcode and recursion wish,
      // recursion available and rcode 3 (no such name), and no records.
      reply[2] = 0x80 | (query[2] & 0x79);
      reply[3] = 0x80 | 3;
      reply.fill(0, 6, 12);
      socket.send(reply, from.port, from.address);
    });
    return { address, socket };
  }
}

/** The uid and gid of `nobody`, which the daemon runs as when we are root (it refuses root). */
async function nobody(): Promise<{ uid: number; gid: number }> {
  const line = (await Deno.readTextFile("/etc/passwd")).split("\n")
    .find((l) => l.startsWith("nobody:"));
  if (!line) throw new Error("ircd-hybrid will not run as root, and there is no user nobody");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

/**
 * Starts ircd-hybrid in a temp dir of its own, on 127.0.0.1. Same shape as ngircd's IrcServer;
 * `output()` is the daemon's own log and its stdout/stderr. It logs no line per accepted connection,
 * so what the cluster bench counts in ngircd's log (connects per second) is not there.
 */
export async function startHybridServer(): Promise<IrcServer> {
  const [bin] = await ensureTools([IRCD_HYBRID]);
  const dir = await Deno.makeTempDir({ prefix: "parley-hybrid-" });
  const port = freePort();
  // hybrid raises its soft open files limit to the hard one by itself, and admits that many
  // clients but RESERVED_FILES: a lower setting than it can hold would be refused at start.
  const files = await openFilesLimit();
  const maxClients = Math.min(MAX_CLIENTS, files - RESERVED_FILES);
  if (maxClients < 12_000) {
    console.error(
      `# ircd-hybrid: open files limited to ${files}, so ${maxClients} clients at most`,
    );
  }
  await Deno.writeTextFile(`${dir}/ircd.conf`, config(dir, port, maxClients));
  const root = Deno.uid?.() === 0;
  const user = root ? await nobody() : undefined;
  // Unpacked rather than installed (it conflicts with ngircd), its modules are still looked for
  // where the package puts them: mounted there, in the daemon's own mount namespace.
  const unpacked = bin.startsWith(`${IRCD_HYBRID_ROOT}/`);
  if (unpacked && !root) {
    throw new Error(
      `ircd-hybrid is unpacked in ${IRCD_HYBRID_ROOT}, which only root can run (its modules are ` +
        `looked for in ${MODULES}); install the package ircd-hybrid instead`,
    );
  }
  if (unpacked) await Deno.mkdir(MODULES, { recursive: true, mode: 0o755 });
  if (user) {
    for (const f of ["", "/ircd.conf"]) {
      await Deno.chown(`${dir}${f}`, user.uid, user.gid);
    }
  }
  const args = [
    ...["-foreground", "-configfile", `${dir}/ircd.conf`, "-logfile", `${dir}/ircd.log`],
    ...["-pidfile", `${dir}/ircd.pid`, "-klinefile", `${dir}/kline.db`],
    ...["-dlinefile", `${dir}/dline.db`, "-xlinefile", `${dir}/xline.db`],
    ...["-resvfile", `${dir}/resv.db`],
  ];
  // As root: in a mount namespace of its own, where /etc/resolv.conf names the server that
  // answers at once; the open files limit raised while still root, then dropped to nobody.
  let dns: Socket | undefined;
  let cmd = "sh";
  let cmdArgs = ["-c", `${RAISE}; exec "$@"`, "sh", bin, ...args];
  if (user) {
    const noDns = await startNoDns();
    dns = noDns.socket;
    await Deno.writeTextFile(`${dir}/resolv.conf`, `nameserver ${noDns.address}\n`);
    await Deno.chmod(`${dir}/resolv.conf`, 0o644);
    cmd = "unshare";
    cmdArgs = [
      ...["--mount", "--propagation", "private", "sh", "-c"],
      `mount --bind "$0" /etc/resolv.conf && ${
        unpacked ? `mount --bind "${IRCD_HYBRID_ROOT}${MODULES}" "${MODULES}" && ` : ""
      }${RAISE} && exec "$@"`,
      `${dir}/resolv.conf`,
      ...["setpriv", `--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", bin],
      ...args,
    ];
  }
  const log = () => {
    try {
      return Deno.readTextFileSync(`${dir}/ircd.log`);
    } catch {
      return "";
    }
  };

  const server = serverProcess({
    name: "ircd-hybrid",
    command: cmd,
    args: cmdArgs,
    port,
    cwd: dir,
    more: log,
  });
  const { start, stop } = server;

  await start();
  return {
    host: "127.0.0.1",
    port,
    url: `irc://127.0.0.1:${port}`,
    tlsPort: 0,
    output: () => server.output() + log(),
    stop,
    start,
    async close() {
      await stop();
      dns?.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
