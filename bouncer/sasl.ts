/**
 * SASL over `AUTHENTICATE`: the mechanism, then the base64 payload in chunks of 400 bytes (a chunk
 * shorter than 400, or `+`, ends it), bounded in size. PLAIN carries a login and a password;
 * EXTERNAL (offered over TLS) only who to log in as, the client's certificate saying who it is.
 */

/** Base64 bytes of one AUTHENTICATE chunk. */
const CHUNK = 400;
/** The most base64 bytes of one payload: an email, a network, a client name and a password. */
const MAX_PAYLOAD = 2400;

/** What one AUTHENTICATE line leads to. */
type SaslStep =
  | { kind: "continue" } // send `AUTHENTICATE +` (the mechanism was accepted)
  | { kind: "more" } // a full chunk: wait for the next one
  | { kind: "mechanisms" } // unknown mechanism: 908, then 904
  | { kind: "aborted" } // `AUTHENTICATE *`: 906
  | { kind: "failed" } // malformed or too long: 904
  | { kind: "credentials"; identity: string; password: string }
  /** EXTERNAL: the authorization identity the client gave ("" for none). */
  | { kind: "external"; identity: string };

/** One SASL exchange of one client. */
export class Sasl {
  #mechanism: "" | "PLAIN" | "EXTERNAL" = "";
  #buffer = "";

  /** `external`: whether EXTERNAL is offered (the client came over TLS). */
  constructor(readonly external: () => boolean = () => false) {}

  /** The mechanisms offered, as CAP and 908 list them. */
  get mechanisms(): string {
    return this.external() ? "PLAIN,EXTERNAL" : "PLAIN";
  }

  /** Whether an exchange is under way. */
  get active(): boolean {
    return this.#mechanism !== "";
  }

  /** Takes the parameter of one AUTHENTICATE line. */
  step(param: string): SaslStep {
    if (param === "*") return this.#end({ kind: "aborted" });
    if (!this.#mechanism) {
      const wanted = param.toUpperCase();
      if (wanted !== "PLAIN" && !(wanted === "EXTERNAL" && this.external())) {
        return { kind: "mechanisms" };
      }
      this.#mechanism = wanted;
      return { kind: "continue" };
    }
    if (param !== "+") {
      if (param.length > CHUNK || this.#buffer.length + param.length > MAX_PAYLOAD) {
        return this.#end({ kind: "failed" });
      }
      this.#buffer += param;
      if (param.length === CHUNK) return { kind: "more" };
    }
    if (this.#mechanism === "EXTERNAL") return this.#end(decodeExternal(this.#buffer));
    return this.#end(decodePlain(this.#buffer));
  }

  #end(step: SaslStep): SaslStep {
    this.#mechanism = "";
    this.#buffer = "";
    return step;
  }
}

/** EXTERNAL's payload: the authorization identity, base64 (empty for none). */
function decodeExternal(b64: string): SaslStep {
  if (!b64) return { kind: "external", identity: "" };
  try {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const identity = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return /[\0\r\n]/.test(identity) ? { kind: "failed" } : { kind: "external", identity };
  } catch {
    return { kind: "failed" };
  }
}

/** `authzid NUL authcid NUL password`, base64; the identity is authcid (authzid when given). */
function decodePlain(b64: string): SaslStep {
  let text: string;
  try {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { kind: "failed" };
  }
  const parts = text.split("\0");
  if (parts.length !== 3) return { kind: "failed" };
  const [authzid, authcid, password] = parts;
  const identity = authzid || authcid;
  if (!identity || !password) return { kind: "failed" };
  return { kind: "credentials", identity, password };
}
