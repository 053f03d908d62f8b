-- dealcards 0.1.0 -> 0.2.0 (ALTER EXTENSION dealcards UPDATE TO '0.2.0').
-- Tables, rows, ids and sequences are untouched: this release changes function declarations only.

-- The shuffle queue functions name every table with the extension's schema and every function
-- and operator with pg_catalog, like deal_cards: they no longer pin a search_path, whose
-- extension schema a role with CREATE on it could fill with lookalikes, and which a schema
-- rename would leave pointing at the old name.
ALTER FUNCTION @extschema@.shuffle_queue_create(bigint[], text, integer) RESET search_path;
ALTER FUNCTION @extschema@.shuffle_queue_next(bigint) RESET search_path;
ALTER FUNCTION @extschema@.shuffle_queue_prev(bigint) RESET search_path;
ALTER FUNCTION @extschema@.shuffle_queue_current(bigint) RESET search_path;
ALTER FUNCTION @extschema@.shuffle_queue_add(bigint, bigint) RESET search_path;
ALTER FUNCTION @extschema@.shuffle_queue_remove(bigint, bigint) RESET search_path;
ALTER FUNCTION @extschema@.shuffle_queue_drop(bigint) RESET search_path;

-- Another session's next changes what shuffle_queue_current returns while a statement runs.
ALTER FUNCTION @extschema@.shuffle_queue_current(bigint) VOLATILE;
