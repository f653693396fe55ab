-- When a session's user last gave their password (to log in or register; ms since the epoch), so
-- that a fresh login may set a new password without typing the current one again. 0: never (a
-- session from an invite link, or one older than this column).
ALTER TABLE sessions ADD COLUMN password_at INTEGER NOT NULL DEFAULT 0;
