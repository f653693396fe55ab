/** Short names of IRC hosts, used for connection and connection profile ids. */

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|::1|\[::1\])$/i;
const IPV4 = /^\d+\.\d+\.\d+\.\d+$/;
const PREFIXES = new Set(["irc", "chat", "ssl", "ircs"]);

/**
 * The short name of a host: `irc.libera.chat` -> `libera`, `127.0.0.1` -> `localhost`,
 * `irc.eu.libera.chat` -> `libera`, `10.1.2.3` -> `10-1-2-3`.
 */
export function hostShortName(host: string): string {
  const h = host.toLowerCase().replace(/\.$/, "");
  if (LOOPBACK.test(h)) return "localhost";
  if (IPV4.test(h) || h.includes(":")) return h.replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
  const labels = h.split(".").filter(Boolean);
  while (labels.length > 1 && PREFIXES.has(labels[0])) labels.shift();
  if (labels.length > 1) labels.pop(); // the top-level domain says nothing about the network
  const name = labels[labels.length - 1] ?? h;
  return name.replace(/[^a-z0-9-]+/g, "-") || "server";
}

/** The id of a host's connection or profile: `irc-` plus its short name. */
export function hostId(host: string): string {
  return `irc-${hostShortName(host)}`;
}
