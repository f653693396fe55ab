/** Turns the reason a connection failed (socket errors, IRC replies) into plain words. */
import { t } from "./i18n.ts";

type Words = (host: string, reason: string) => string;

/** Parley's refusal of a private address (irc/socket/target.ts writes it). */
const PRIVATE = /^(.+) is an? ([\w-]+) address: ask an admin to turn on/;

/** Parley's refusal of a private address in the user's language; undefined for other text. */
export function privateRefusal(text: string): string | undefined {
  const m = PRIVATE.exec(text);
  if (!m) return undefined;
  return t(
    "{host} is a {kind} address: ask an admin to turn on 'Users may connect to private addresses' in the server settings.",
    { host: m[1], kind: m[2] },
  );
}

/** Patterns of known reasons, most specific first, with their plain words. */
const KNOWN: [RegExp, Words][] = [
  [/^Disconnected by the user\.?$/i, () => t("You disconnected it. /connect connects it again.")],
  [PRIVATE, (_, reason) => privateRefusal(reason) ?? reason],
  [
    /ECONNREFUSED|connection refused/i,
    () => t("Connection refused: nothing listens on that port."),
  ],
  [
    /certificate|UnknownIssuer|self[- ]signed|CERT_|NotValidForName|hostname mismatch/i,
    () => t("The server's TLS certificate is not trusted."),
  ],
  [
    /TLS|SSL|handshake|wrong version number|InvalidContentType|CorruptMessage|record overflow|EPROTO/i,
    () => t("TLS handshake failed: is this a plain-text port?"),
  ],
  [
    /ENOTFOUND|EAI_AGAIN|getaddrinfo|failed to lookup address|Name or service not known|No address associated|^Could not resolve /i,
    (host) => t("Unknown host: {host}", { host }),
  ],
  [/ETIMEDOUT|timed out/i, () => t("The server did not answer in time.")],
  [/EHOSTUNREACH|ENETUNREACH|unreachable/i, () => t("The server cannot be reached from here.")],
  [/ECONNRESET|reset by peer|broken pipe/i, () => t("The server closed the connection.")],
  [/SASL|password|passwd|\b464\b|not authori[sz]ed/i, () => t("The server refused the password.")],
  [
    /banned|K-?lined|G-?lined|Z-?lined/i,
    (_, reason) => t("Banned from this server: {reason}", { reason }),
  ],
];

/**
 * A plain description of `reason` (e.g. "connect ECONNREFUSED 127.0.0.1:6667"), or the reason
 * itself when it is not a known one; "" when there is none.
 */
export function plainReason(reason: unknown, host = ""): string {
  // A reason in quotes (as some servers send it) is shown without them.
  const text = typeof reason === "string"
    ? reason.trim().slice(0, 300).replace(/^"([^"]*)"$/, "$1")
    : "";
  if (!text) return "";
  for (const [re, plain] of KNOWN) {
    if (re.test(text)) return plain(host || "?", text);
  }
  return text;
}
