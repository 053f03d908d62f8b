-- Ends hand $1.
UPDATE @extschema@.room_hand SET ended = true WHERE hand_id OPERATOR(pg_catalog.=) $1
