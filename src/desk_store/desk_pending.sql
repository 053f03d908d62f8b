-- Whether the desk exists, and its chain head; and whether its newest game is a deal of this
-- transaction that the caller cannot see yet (row level security hides a deal's game from all
-- but the tables' owner until it commits, on 0.7.0's tables): its record is read after the commit.
SELECT d.fair_chain_head,
       d.fair_chain_head IS NOT NULL
       AND @extschema@.dealcards_written_here(d.xmin)
       AND NOT EXISTS (SELECT FROM @extschema@.game g
                        WHERE g.desk_id OPERATOR(pg_catalog.=) d.desk_id
                          AND g.game_id OPERATOR(pg_catalog.=) d.cur_game_id) AS pending
  FROM @extschema@.desk d
 WHERE d.desk_id OPERATOR(pg_catalog.=) $1
