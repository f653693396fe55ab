/** push/vapid.ts: the server's VAPID key pair, made without loading `web-push`. */
import { Buffer } from "node:buffer";
import { createECDH } from "node:crypto";
import { assert, assertEquals } from "../../support/assert.ts";
import { newVapidKeys } from "../../../push/vapid.ts";

Deno.test("newVapidKeys: a P-256 pair whose public key is the private key's point", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const keys = newVapidKeys();
    assert(/^[\w-]{87}$/.test(keys.publicKey), keys.publicKey);
    assert(/^[\w-]{43}$/.test(keys.privateKey), keys.privateKey);
    const ecdh = createECDH("prime256v1");
    ecdh.setPrivateKey(Buffer.from(keys.privateKey, "base64url"));
    assertEquals(ecdh.getPublicKey().toString("base64url"), keys.publicKey);
    seen.add(keys.privateKey);
  }
  assertEquals(seen.size, 200);
});
