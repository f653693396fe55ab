-- An account made from the shell is owed the default connection every new user gets: the command
-- cannot reach the daemon that would connect it, so the account's first login adds it.
ALTER TABLE users ADD COLUMN default_connection_due INTEGER NOT NULL DEFAULT 0;
