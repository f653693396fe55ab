/**
 * `certfp`: two kinds of certificate. `fingerprint` and `generate` are a network's own client
 * certificate (irc/certificate.ts), which the network's services take for SASL EXTERNAL (register
 * its fingerprint with `NickServ CERT ADD`). `add`, `list` and `remove` are the certificates the
 * user logs in to Parley's listener with (SASL EXTERNAL), known by their SHA-256 fingerprints.
 */
import { createHash } from "node:crypto";
import { MAX_CERTFPS } from "../../store/certfp.ts";
import { clientCertificate } from "../../irc/certificate.ts";
import { invalid } from "../../lib/errors.ts";
import { fingerprint, pemBytes, selfSigned } from "../../lib/self_signed.ts";
import { parseArgs } from "./args.ts";
import { networkOf } from "./network.ts";
import { register, UsageError } from "./table.ts";
import { t } from "./words.ts";

/** A fingerprint as typed (any case, with or without colons) in the stored form; else throws. */
function normalFingerprint(text: string): string {
  const hex = text.replace(/:/g, "").toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hex)) {
    throw invalid(t("A fingerprint is the SHA-256 of the certificate: 64 hex digits."));
  }
  return hex;
}

/** The lines that show a certificate's fingerprints. */
function fingerprintLines(certPem: string): string[] {
  const der = pemBytes(certPem);
  return [
    t("SHA-256 fingerprint: {fp}", { fp: createHash("sha256").update(der).digest("hex") }),
    t("SHA-512 fingerprint: {fp}", { fp: fingerprint(certPem) }),
  ];
}

register(
  {
    name: "certfp fingerprint",
    usage: "[-network <network>]",
    description: "Shows the fingerprints of a network's client certificate",
    async run(call, args) {
      const p = parseArgs(args, ["network"]);
      const record = await networkOf(call, p.flags.get("network"));
      const cert = await clientCertificate(call.deps.store, record);
      return fingerprintLines(cert.cert);
    },
  },
  {
    name: "certfp generate",
    usage: "[-network <network>]",
    description: "Makes a new client certificate for a network (used from its next connect)",
    async run(call, args) {
      const p = parseArgs(args, ["network"]);
      const record = await networkOf(call, p.flags.get("network"));
      const made = await selfSigned(record.nick || record.connectionId);
      await call.deps.store.connections.replaceCertificate(record.id, {
        ...made,
        fingerprint: fingerprint(made.cert),
      });
      return [
        t("{id} has a new client certificate, used from its next connect.", {
          id: record.connectionId,
        }),
        ...fingerprintLines(made.cert),
      ];
    },
  },
  {
    name: "certfp add",
    usage: "[fingerprint]",
    description:
      "Lets a client certificate log you in to Parley (SASL EXTERNAL); without a fingerprint, the one this client presented",
    async run(call, args) {
      if (args.length > 1) throw new UsageError(t("Give the certificate's SHA-256 fingerprint."));
      if (!args.length && !call.certificate) {
        throw new UsageError(
          t("This client presented no certificate: give the certificate's SHA-256 fingerprint."),
        );
      }
      // A stolen app token (or certificate) must not leave its thief a way in that outlives
      // the revocation of it.
      if (!call.passwordGiven) {
        return [
          t(
            "Adding a certificate needs your password: log in with it (not an app token or a certificate), or add it on the account page.",
          ),
        ];
      }
      const fp = args.length ? normalFingerprint(args[0]) : call.certificate!;
      const added = await call.deps.store.certfp.add(call.user.id, fp);
      if (added === "exists") return [t("That certificate is registered already.")];
      if (added === "full") {
        return [t("At most {max} certificates: remove one no longer used.", { max: MAX_CERTFPS })];
      }
      return [t("Added: a client with this certificate may log in as you with SASL EXTERNAL.")];
    },
  },
  {
    name: "certfp list",
    usage: "",
    description: "Lists the client certificates that log you in",
    async run(call) {
      const list = await call.deps.store.certfp.list(call.user.id);
      if (!list.length) return [t("No certificates log you in.")];
      return list.map((c) => c.fingerprint);
    },
  },
  {
    name: "certfp remove",
    usage: "<fingerprint>",
    description: "Stops a client certificate logging you in",
    async run(call, args) {
      if (args.length !== 1) throw new UsageError(t("Give the certificate's SHA-256 fingerprint."));
      const fp = normalFingerprint(args[0]);
      if (!(await call.deps.store.certfp.remove(call.user.id, fp))) {
        return [t("No such certificate of yours.")];
      }
      // The clients logged in with it are ended, as a revoked app token's are.
      await call.deps.revocations?.revoke({
        userId: call.user.id,
        kind: "certificate",
        fingerprint: fp,
      });
      return [t("Removed.")];
    },
  },
);
