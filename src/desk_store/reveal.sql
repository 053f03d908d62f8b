-- Marks round $2 of a desk revealed at $3; returns the round if it was unrevealed. The seed is
-- not returned: the view fair_commitment shows it once this transaction has committed. Run as
-- fair_seed's owner.
UPDATE @extschema@.fair_seed SET revealed_at = $3
 WHERE desk_id OPERATOR(pg_catalog.=) $1 AND round OPERATOR(pg_catalog.=) $2
   AND revealed_at IS NULL
RETURNING round
