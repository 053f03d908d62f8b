-- A desk's rounds whose seed is unrevealed although the desk does not deal under them: left
-- without a reveal (the functions reveal a round as they take the desk off it).
SELECT c.round
  FROM @extschema@.fair_commitment c
 WHERE c.desk_id OPERATOR(pg_catalog.=) $1 AND c.revealed_at IS NULL
   AND NOT EXISTS (SELECT FROM @extschema@.desk d
                    WHERE d.desk_id OPERATOR(pg_catalog.=) $1
                      AND d.fair_round OPERATOR(pg_catalog.=) c.round)
 ORDER BY c.round
