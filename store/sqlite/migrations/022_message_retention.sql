-- Retention deletes the oldest messages a batch at a time: this index finds them without a scan.
CREATE INDEX messages_ts ON messages (ts);
