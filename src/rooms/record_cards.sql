-- The cards a call dealt to hand $1, numbered on from $2, in stage $3 named $4: seat (0 for a
-- pile), pile ('' for a seat), face up, position and card index, label.
INSERT INTO @extschema@.room_card (hand_id, dealt_no, stage_no, stage, seat, pile, face_up, position, card, label)
SELECT $1, $2 OPERATOR(pg_catalog.+) d.n::integer, $3, $4,
       CASE WHEN d.seat OPERATOR(pg_catalog.<>) 0 THEN d.seat END,
       CASE WHEN d.pile OPERATOR(pg_catalog.<>) '' THEN d.pile END,
       d.up, d.position, d.card, d.label
  FROM ROWS FROM (pg_catalog.unnest($5::smallint[]), pg_catalog.unnest($6::text[]),
                  pg_catalog.unnest($7::boolean[]), pg_catalog.unnest($8::integer[]),
                  pg_catalog.unnest($9::integer[]), pg_catalog.unnest($10::text[]))
       WITH ORDINALITY AS d(seat, pile, up, position, card, label, n)
