-- A game's desk, and whether it was dealt in provably fair mode.
SELECT desk_id, fair_commitment IS NOT NULL AS fair FROM @extschema@.game
 WHERE game_id OPERATOR(pg_catalog.=) $1
