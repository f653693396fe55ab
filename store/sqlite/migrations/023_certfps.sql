-- Client certificates users log in to the IRC listener with (SASL EXTERNAL), by the SHA-256 of
-- the certificate (lower-case hex). One certificate names one user.
CREATE TABLE certfps (
  fingerprint TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created INTEGER NOT NULL
) STRICT;
CREATE INDEX certfps_user ON certfps(user_id);
