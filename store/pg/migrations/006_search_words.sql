-- Each message's words also name its user's bucket of ids (`~b<user id>.<id / 65536>`, see
-- store/pg/tsquery.ts), so that a search reads a user's newest matches first.
UPDATE messages
SET words = words || format('%L', '~b' || user_id || '.' || (id >> 16))::tsvector;

-- Every word the messages hold (store/pg/vocabulary.ts): a prefix is searched as its whole words.
-- The C collation sorts by code point, so the words that start with a prefix are one range.
CREATE TABLE search_words (word text COLLATE "C" PRIMARY KEY);
INSERT INTO search_words (word)
SELECT DISTINCT w.lexeme FROM messages, unnest(words) AS w WHERE left(w.lexeme, 1) <> '~';
