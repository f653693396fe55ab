-- When a session's user last gave their password (to log in or register; ms since the epoch), so
-- that a fresh login may set a new password without typing the current one again. 0: never (a
-- session from an invite link, or one older than this column). As SQLite's migration 018.
ALTER TABLE sessions ADD COLUMN password_at bigint NOT NULL DEFAULT 0;
