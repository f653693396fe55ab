/**
 * Each connection's TLS client certificate: made on first need (a self-signed EC P-256 certificate,
 * lib/self_signed.ts), kept with its private key in the store, sent on TLS connections, and shown
 * to the user only as its fingerprint, which services take for SASL EXTERNAL (NickServ CERT ADD).
 */
import { fingerprint, selfSigned } from "../lib/self_signed.ts";
import type { ClientCertificate, ConnectionRecord } from "../store/connections.ts";
import type { Store } from "../store/mod.ts";

/** The connection's certificate, made and stored when it has none yet. */
export async function clientCertificate(
  store: Store,
  record: ConnectionRecord,
): Promise<ClientCertificate> {
  const kept = await store.connections.certificate(record.id);
  if (kept) return kept;
  const made = selfSigned(record.nick || record.connectionId);
  const fresh = { ...made, fingerprint: fingerprint(made.cert) };
  // Another connect may have stored one meanwhile: the stored one is the one.
  const stored = await store.connections.setCertificate(record.id, fresh) ?? fresh;
  record.certFingerprint = stored.fingerprint;
  return stored;
}
