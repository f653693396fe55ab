-- What makes two connections of one user the same (host, port and the casefolded nick), so that
-- creating one is an index lookup instead of a read of all the user's connections. '' on rows
-- stored before it was kept: the connection service fills those in on its next check.
ALTER TABLE connections ADD COLUMN target TEXT NOT NULL DEFAULT '';
CREATE INDEX connections_target ON connections (user_id, target);
