-- The note naming the leader $3 and the game $2, its id from this node's range ($4).
INSERT INTO @extschema@.note (note_id, desk_id, player_no, note_type, flag, body)
OVERRIDING SYSTEM VALUE
VALUES ($4 OPERATOR(pg_catalog.+)
            pg_catalog.nextval('@extschema@.note_note_id_seq'::pg_catalog.regclass),
        $1, $3, 3, 'y', pg_catalog.concat($3, '#', $2))
