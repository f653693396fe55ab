/**
 * Each connection's TLS client certificate: made on first need (a self-signed EC P-256 certificate,
 * lib/self_signed.ts), kept with its private key in the store, sent on TLS connections, and shown
 * to the user only as its fingerprint, which services take for SASL EXTERNAL (NickServ CERT ADD).
 */
import { fingerprint, selfSigned } from "../lib/self_signed.ts";
import type { ClientCertificate, ConnectionRecord } from "../store/connections.ts";
import type { Store } from "../store/mod.ts";

/**
 * The certificates being made, by store and connection row id: a new connection is asked for one
 * by the API's answer and by its first connect at once, and making one waits on Web Crypto, so the
 * second ask shares the first's rather than making one to throw away.
 */
const makingIn = new WeakMap<Store, Map<number, Promise<ClientCertificate>>>();

/** The connection's certificate, made and stored when it has none yet. */
export async function clientCertificate(
  store: Store,
  record: ConnectionRecord,
): Promise<ClientCertificate> {
  const kept = await store.connections.certificate(record.id);
  if (kept) return kept;
  const making = makingIn.get(store) ?? new Map();
  makingIn.set(store, making);
  let made = making.get(record.id);
  if (!made) {
    made = make(store, record).finally(() => making.delete(record.id));
    making.set(record.id, made);
  }
  const stored = await made;
  record.certFingerprint = stored.fingerprint;
  return stored;
}

async function make(store: Store, record: ConnectionRecord): Promise<ClientCertificate> {
  const made = await selfSigned(record.nick || record.connectionId);
  const fresh = { ...made, fingerprint: fingerprint(made.cert) };
  // Another node (or an ask before this one's map entry) may have stored one meanwhile: the
  // stored one is the one.
  return await store.connections.setCertificate(record.id, fresh) ?? fresh;
}
