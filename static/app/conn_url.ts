/** Builds and reads the `irc://` URL of a connection from the form's fields; pure. */

/** The fields of the connection form that live in the URL. */
export interface ConnFields {
  host: string;
  port: string;
  tls: boolean;
  tlsVerify: boolean;
  nick: string;
  username: string;
  realname: string;
  /** Login (SASL account or server user). */
  login: string;
  password: string;
  sasl: "" | "plain" | "external";
}

/** Empty fields with the usual defaults (TLS on). */
export const EMPTY_FIELDS: ConnFields = {
  host: "",
  port: "",
  tls: true,
  tlsVerify: true,
  nick: "",
  username: "",
  realname: "",
  login: "",
  password: "",
  sasl: "",
};

/** Reads a (password-free) URL as the API returns it into form fields. */
export function fieldsFromUrl(text: string): ConnFields {
  let url: URL;
  try {
    url = new URL(text.replace(/^ircs?:/, "http:"));
  } catch {
    return { ...EMPTY_FIELDS };
  }
  const p = url.searchParams;
  const on = (v: string | null, dflt: boolean) => v === null ? dflt : /^(|1|true|yes|on)$/i.test(v);
  const tls = on(p.get("tls"), text.toLowerCase().startsWith("ircs:"));
  return {
    host: url.hostname,
    port: url.port,
    tls,
    tlsVerify: on(p.get("tls_verify"), true),
    nick: p.get("nick") ?? "",
    username: p.get("username") ?? "",
    realname: p.get("realname") ?? "",
    login: decodeURIComponent(url.username),
    password: "",
    sasl: (p.get("sasl") ?? "") as ConnFields["sasl"],
  };
}

/** The URL to send for the fields. */
export function urlFromFields(f: ConnFields): string {
  const auth = f.login || f.password
    ? `${encodeURIComponent(f.login)}${f.password ? ":" + encodeURIComponent(f.password) : ""}@`
    : "";
  const host = f.host.trim().includes(":") ? `[${f.host.trim()}]` : f.host.trim();
  const port = f.port.trim() ? `:${f.port.trim()}` : "";
  const q = new URLSearchParams();
  if (f.tls) q.set("tls", "1");
  if (f.tls && !f.tlsVerify) q.set("tls_verify", "0");
  if (f.nick.trim()) q.set("nick", f.nick.trim());
  if (f.username.trim()) q.set("username", f.username.trim());
  if (f.realname.trim()) q.set("realname", f.realname.trim());
  if (f.sasl) q.set("sasl", f.sasl);
  const qs = q.toString();
  return `irc://${auth}${host}${port}${qs ? "?" + qs : ""}`;
}

/** Whether `port` is empty (the default port) or a whole number from 1 to 65535. */
export function validPort(port: string): boolean {
  const p = port.trim();
  return p === "" || (/^\d{1,5}$/.test(p) && Number(p) >= 1 && Number(p) <= 65535);
}

/**
 * A nick made from an email address: its local part in the characters IRC allows.
 *
 * @internal test seam
 */
export function nickFromEmail(email: string): string {
  let nick = email.split("@")[0].replace(/[^A-Za-z0-9_\-\[\]\\`^{}|]/g, "").slice(0, 15);
  if (/^[0-9-]/.test(nick)) nick = ("u" + nick).slice(0, 15);
  return nick;
}

/**
 * The fields of a new connection: what the user typed so far wins, then the default profile's
 * URL, then a nick derived from the account's email.
 */
export function prefill(
  now: ConnFields,
  profileUrl: string | undefined,
  email: string,
): ConnFields {
  const base = profileUrl ? fieldsFromUrl(profileUrl) : { ...EMPTY_FIELDS };
  if (!base.nick && email) base.nick = nickFromEmail(email);
  const out = { ...now };
  for (const k of Object.keys(base) as (keyof ConnFields)[]) {
    const typed = now[k] !== EMPTY_FIELDS[k];
    if (!typed) (out as Record<string, unknown>)[k] = base[k];
  }
  return out;
}
