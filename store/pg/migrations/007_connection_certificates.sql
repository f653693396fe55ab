-- Each connection's TLS client certificate (PEM) and its private key, made by Parley, shown to the
-- user only as the certificate's fingerprint (SHA-512, hex), which services take for SASL EXTERNAL.
ALTER TABLE connections
  ADD COLUMN tls_cert text NOT NULL DEFAULT '',
  ADD COLUMN tls_key text NOT NULL DEFAULT '',
  ADD COLUMN cert_fingerprint text NOT NULL DEFAULT '';
