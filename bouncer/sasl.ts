/**
 * SASL PLAIN over `AUTHENTICATE`: the mechanism, then the base64 payload in chunks of 400 bytes
 * (a chunk shorter than 400, or `+`, ends it), bounded in size.
 */

/** Base64 bytes of one AUTHENTICATE chunk. */
export const CHUNK = 400;
/** The most base64 bytes of one payload: an email, a network, a client name and a password. */
const MAX_PAYLOAD = 2400;

/** What one AUTHENTICATE line leads to. */
export type SaslStep =
  | { kind: "continue" } // send `AUTHENTICATE +` (the mechanism was accepted)
  | { kind: "more" } // a full chunk: wait for the next one
  | { kind: "mechanisms" } // unknown mechanism: 908, then 904
  | { kind: "aborted" } // `AUTHENTICATE *`: 906
  | { kind: "failed" } // malformed or too long: 904
  | { kind: "credentials"; identity: string; password: string };

/** One SASL exchange of one client. */
export class SaslPlain {
  #mechanism = false;
  #buffer = "";

  /** Whether an exchange is under way. */
  get active(): boolean {
    return this.#mechanism;
  }

  /** Takes the parameter of one AUTHENTICATE line. */
  step(param: string): SaslStep {
    if (param === "*") return this.#end({ kind: "aborted" });
    if (!this.#mechanism) {
      if (param.toUpperCase() !== "PLAIN") return { kind: "mechanisms" };
      this.#mechanism = true;
      return { kind: "continue" };
    }
    if (param !== "+") {
      if (param.length > CHUNK || this.#buffer.length + param.length > MAX_PAYLOAD) {
        return this.#end({ kind: "failed" });
      }
      this.#buffer += param;
      if (param.length === CHUNK) return { kind: "more" };
    }
    return this.#end(decodePlain(this.#buffer));
  }

  #end(step: SaslStep): SaslStep {
    this.#mechanism = false;
    this.#buffer = "";
    return step;
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
