-- A suspended account keeps everything it has, but nobody logs in to it and its IRC connections do
-- not run: the time it was suspended (ms), 0 while it is not.
ALTER TABLE users ADD COLUMN suspended bigint NOT NULL DEFAULT 0;
