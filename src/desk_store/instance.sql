-- This server's token (dealcards_instance), which the rounds committed here record. Run as its
-- owner.
SELECT token::pg_catalog.text AS token FROM @extschema@.dealcards_instance
