-- Per conversation: how much of it notifies the user ('' is the default: mentions in channels,
-- everything in private), and the line the user has half typed there, kept for other devices.
ALTER TABLE conversations ADD COLUMN notify TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN draft TEXT NOT NULL DEFAULT '';
