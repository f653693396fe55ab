/**
 * Finds or installs the Debian packages a task needs (ngircd, ircd-hybrid, chromium, postgresql,
 * irssi, weechat, tmux, systemd, znc, slapd), naming them when it cannot.
 */
import { removeLeftover } from "../lib/remove.ts";

/** A program a task needs and the Debian package that provides it. */
interface SystemTool {
  /** Candidate paths of the binary, first found wins. */
  paths: string[];
  /** The Debian package to install. */
  pkg: string;
  /** Packages installed alongside (recommended ones that matter, since we skip recommends). */
  extra?: string[];
  /**
   * For a package that conflicts with one the tests need: the folder it is unpacked in (with
   * `apt-get download` and `dpkg-deb -x`) instead of installed; `extra` are its dependencies,
   * installed as usual.
   */
  unpackTo?: string;
}

/** The IRC server used by the integration tests. */
export const NGIRCD: SystemTool = { paths: ["/usr/sbin/ngircd", "/usr/bin/ngircd"], pkg: "ngircd" };
/**
 * Where ircd-hybrid is unpacked: readable by the unprivileged user it runs as.
 *
 * @internal test seam
 */
export const IRCD_HYBRID_ROOT = "/var/cache/parley/ircd-hybrid";
/**
 * The second IRC server of the scale benches, faster than ngircd with thousands of clients.
 * Debian's ircd-hybrid conflicts with ngircd (both provide `ircd`): installing one removes the
 * other, so it is unpacked beside, unless the system has it installed.
 */
export const IRCD_HYBRID: SystemTool = {
  paths: ["/usr/sbin/ircd-hybrid", `${IRCD_HYBRID_ROOT}/usr/sbin/ircd-hybrid`],
  pkg: "ircd-hybrid",
  extra: ["libltdl7"], // its one dependency a base system may lack
  unpackTo: IRCD_HYBRID_ROOT,
};
/**
 * libfaketime, preloaded into a daemon by the test of its wall clock to set that clock while the
 * daemon runs (the threads-safe build; Debian puts it under the architecture's folder).
 */
export const LIBFAKETIME: SystemTool = {
  paths: ["x86_64", "aarch64", "arm", "i386"].map((arch) =>
    `/usr/lib/${arch}-linux-gnu${arch === "arm" ? "eabihf" : ""}/faketime/libfaketimeMT.so.1`
  ),
  pkg: "libfaketime",
};
/** A terminal IRC client the bouncer's tests attach with, and the terminal it runs in. */
export const IRSSI: SystemTool = { paths: ["/usr/bin/irssi"], pkg: "irssi" };
export const TMUX: SystemTool = { paths: ["/usr/bin/tmux"], pkg: "tmux" };
/** OpenLDAP's server, the directory the tests of the LDAP login bind against. */
export const SLAPD: SystemTool = { paths: ["/usr/sbin/slapd"], pkg: "slapd" };
/** ZNC 1.8, run by the tests of `parley import znc` to write a real data folder. */
export const ZNC: SystemTool = { paths: ["/usr/bin/znc"], pkg: "znc" };
/** The other terminal client the bouncer's tests attach with (its curses build, for tmux). */
export const WEECHAT: SystemTool = {
  paths: ["/usr/bin/weechat", "/usr/bin/weechat-curses"],
  pkg: "weechat-curses",
};
/**
 * `systemd-analyze`, for the checks of the shipped unit files (tests/unit/systemd_unit_test.ts):
 * optional, since a machine without it skips them saying why.
 */
export const SYSTEMD_ANALYZE: SystemTool = {
  paths: ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"],
  pkg: "systemd",
};
/** The browser used by the end-to-end tests. */
export const CHROMIUM: SystemTool = {
  paths: ["/usr/bin/chromium", "/usr/bin/chromium-browser"],
  pkg: "chromium",
  // Recommends are skipped; without a font, pages render no text at all in screenshots.
  extra: ["fonts-liberation"],
};

/**
 * PostgreSQL's server programs: Debian keeps them in /usr/lib/postgresql/<version>/bin, off
 * PATH. `paths` is a getter so that it finds the version folder again after an install.
 */
export const POSTGRES: SystemTool = {
  get paths() {
    return postgresBinDirs().map((dir) => `${dir}/initdb`);
  },
  pkg: "postgresql",
};

/**
 * The bin folders of the installed PostgreSQL versions, newest first.
 *
 * @internal test seam
 */
export function postgresBinDirs(): string[] {
  const root = "/usr/lib/postgresql";
  let versions: string[] = [];
  try {
    versions = [...Deno.readDirSync(root)].filter((e) => e.isDirectory).map((e) => e.name);
  } catch {
    return [];
  }
  return versions.sort((a, b) => Number(b) - Number(a) || b.localeCompare(a))
    .map((v) => `${root}/${v}/bin`)
    .filter((dir) => ["initdb", "pg_ctl", "postgres"].every((p) => exists(`${dir}/${p}`)));
}

function exists(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

async function run(cmd: string, args: string[]): Promise<boolean> {
  const child = new Deno.Command(cmd, {
    args,
    stdout: "inherit",
    stderr: "inherit",
    env: { DEBIAN_FRONTEND: "noninteractive" },
  }).spawn();
  return (await child.status).success;
}

/** Downloads `pkg`'s .deb and unpacks its files under `root`, without installing it. */
async function unpack(pkg: string, root: string): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "parley-deb-" });
  try {
    await Deno.chmod(dir, 0o777); // apt-get download writes as its own user, _apt
    const fetched = await new Deno.Command("apt-get", {
      args: ["download", "-qq", pkg],
      cwd: dir,
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    const deb = [...Deno.readDirSync(dir)].find((e) => e.name.endsWith(".deb"));
    if (!fetched.success || !deb) throw new Error(`apt-get could not download: ${pkg}`);
    await Deno.mkdir(root, { recursive: true, mode: 0o755 });
    if (!await run("dpkg-deb", ["-x", `${dir}/${deb.name}`, root])) {
      throw new Error(`dpkg-deb could not unpack ${deb.name} in ${root}`);
    }
  } finally {
    await removeLeftover(dir, { recursive: true });
  }
}

/**
 * Returns the path of each tool, installing the missing ones with apt-get when running as root
 * (unpacking those with `unpackTo`).
 */
export async function ensureTools(tools: SystemTool[]): Promise<string[]> {
  const missing = tools.filter((t) => !t.paths.some(exists));
  if (missing.length) {
    const pkgs = missing.flatMap((t) => [t.pkg, ...(t.extra ?? [])]);
    const isRoot = Deno.uid?.() === 0;
    if (!isRoot || !exists("/usr/bin/apt-get")) {
      throw new Error(
        `missing system packages: ${pkgs.join(" ")}. Install them with: sudo apt-get install ${
          pkgs.join(" ")
        }`,
      );
    }
    const installed = pkgs.filter((p) => !missing.some((t) => t.unpackTo && t.pkg === p));
    console.error(`installing Debian packages: ${pkgs.join(" ")}`);
    const ok = (await run("apt-get", ["update", "-qq"])) &&
      (await run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...installed]));
    if (!ok) throw new Error(`apt-get could not install: ${installed.join(" ")}`);
    for (const t of missing) if (t.unpackTo) await unpack(t.pkg, t.unpackTo);
  }
  return tools.map((t) => {
    const path = t.paths.find(exists);
    if (!path) {
      throw new Error(
        `${t.pkg} is installed but its binary was not found at ${t.paths.join(" or ")}`,
      );
    }
    return path;
  });
}
