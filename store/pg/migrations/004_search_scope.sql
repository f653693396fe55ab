-- Each message's words also name its user and conversation (`~u<id>`, `~c<id>`, see
-- store/pg/tsquery.ts), so that a search narrows by them inside the GIN index.
UPDATE messages
SET words = words || format('%L %L', '~u' || user_id, '~c' || conversation)::tsvector;
