-- Convos's connection profiles have skip_queue: connect without waiting in the per-host queue.
ALTER TABLE connection_profiles ADD COLUMN skip_queue INTEGER NOT NULL DEFAULT 0;
