-- Shuffle queues spread by group: each pass plays every track once, no two neighbours of one
-- group when that can be avoided. Picks are live random: only booleans and counts are printed.
\set SHOW_CONTEXT never
SELECT setval('shuffle_queue_id_seq', 200) AS queue_ids_from \gset

CREATE TEMP TABLE playlist (track bigint PRIMARY KEY, artist text, album text);
INSERT INTO playlist VALUES
  (1, 'Abba', 'Arrival'), (2, 'Abba', 'Arrival'), (3, 'Abba', 'Voulez-Vous'), (4, 'Abba', 'Voulez-Vous'),
  (5, 'Queen', 'Jazz'), (6, 'Queen', 'Jazz'), (7, 'Queen', 'Opera'),
  (8, 'Bowie', 'Low'), (9, 'Bowie', 'Heroes'),
  (10, 'Prince', 'Purple Rain');

-- A queue spread by artist: 10 tracks, 3 passes.
SELECT shuffle_queue_new((SELECT array_agg(track ORDER BY track) FROM playlist),
                         groups => (SELECT array_agg(artist ORDER BY track) FROM playlist)) AS q \gset
SELECT mode, window_size, tracks, levels, pass, pass_left, history FROM shuffle_queue WHERE queue_id = :q;
SELECT count(*) AS groups, sum(size) AS tracks, bool_and(parent = 0) AS one_level
  FROM shuffle_queue_unit WHERE queue_id = :q;
CREATE TEMP TABLE plays AS
  SELECT step, shuffle_queue_next(:q) AS track FROM generate_series(1, 30) step;
-- Each pass is every track once.
SELECT (step - 1) / 10 AS pass, count(DISTINCT track) AS distinct_tracks
  FROM plays GROUP BY 1 ORDER BY 1;
-- Same-artist neighbours: Abba's 4 of 10 need none, in the passes and across them.
SELECT count(*) AS same_artist_neighbours
  FROM (SELECT p.artist, lag(p.artist) OVER (ORDER BY step) AS before
          FROM plays JOIN playlist p USING (track)) s
 WHERE artist = before;
SELECT pass, pass_left, history FROM shuffle_queue WHERE queue_id = :q;

-- Previous walks back through what played, next replays it.
SELECT shuffle_queue_prev(:q) = (SELECT track FROM plays WHERE step = 29) AS prev_is_29,
       shuffle_queue_prev(:q) = (SELECT track FROM plays WHERE step = 28) AS prev_is_28;
SELECT shuffle_queue_next(:q) = (SELECT track FROM plays WHERE step = 29) AS next_replays_29,
       shuffle_queue_next(:q) = (SELECT track FROM plays WHERE step = 30) AS next_replays_30;
SELECT shuffle_queue_current(:q) = (SELECT track FROM plays WHERE step = 30) AS current_is_30;

-- Added tracks join their group (or a new one) in the current pass; a removed track never plays.
SELECT shuffle_queue_add(:q, 11, 'Abba') AS tracks_after_adding_to_abba,
       shuffle_queue_add(:q, 12, 'Sade') AS tracks_after_adding_sade;
SELECT shuffle_queue_remove(:q, 8) AS tracks_after_removing_8;
CREATE TEMP TABLE more_plays AS
  SELECT step, shuffle_queue_next(:q) AS track FROM generate_series(1, 33) step;
SELECT count(DISTINCT track) AS distinct_tracks, count(*) FILTER (WHERE track = 8) AS plays_of_8,
       count(*) FILTER (WHERE track IN (11, 12)) AS plays_of_the_added
  FROM more_plays;
SELECT name, size FROM shuffle_queue_unit WHERE queue_id = :q ORDER BY unit_id;

-- Two levels: artists apart, and each artist's albums apart within the artist.
SELECT shuffle_queue_new((SELECT array_agg(track ORDER BY track) FROM playlist),
                         groups => (SELECT array_agg(artist ORDER BY track) FROM playlist),
                         subgroups => (SELECT array_agg(album ORDER BY track) FROM playlist)) AS q2 \gset
SELECT levels FROM shuffle_queue WHERE queue_id = :q2;
SELECT count(*) FILTER (WHERE parent = 0) AS artists, count(*) FILTER (WHERE parent <> 0) AS albums
  FROM shuffle_queue_unit WHERE queue_id = :q2;
CREATE TEMP TABLE nested AS
  SELECT step, shuffle_queue_next(:q2) AS track FROM generate_series(1, 40) step;
SELECT count(*) AS same_artist_neighbours
  FROM (SELECT p.artist, lag(p.artist) OVER (ORDER BY step) AS before
          FROM nested JOIN playlist p USING (track)) s
 WHERE artist = before;
-- Abba's Arrival and Voulez-Vous alternate: no Abba album twice in a row among Abba's tracks.
SELECT count(*) AS same_album_among_abba
  FROM (SELECT p.album, lag(p.album) OVER (ORDER BY step) AS before
          FROM nested JOIN playlist p USING (track) WHERE p.artist = 'Abba') s
 WHERE album = before;
SELECT shuffle_queue_add(:q2, 13, 'Abba', 'Gold') AS tracks_after_adding_an_album;
-- Without a subgroup, a track is a subgroup of its own (as a NULL subgroup is).
SELECT shuffle_queue_add(:q2, 14, 'Abba') AS tracks_after_adding_without_album;
SELECT count(*) AS abba_albums FROM shuffle_queue_unit
 WHERE queue_id = :q2 AND parent = (SELECT unit_id FROM shuffle_queue_unit WHERE queue_id = :q2 AND name = 'Abba');

-- Tracks without a group are each a group of their own.
SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4]::bigint[], groups => ARRAY['x', NULL, NULL, 'x']) AS q3 \gset
SELECT count(*) AS units, count(*) FILTER (WHERE name IS NULL) AS without_a_name
  FROM shuffle_queue_unit WHERE queue_id = :q3;
SELECT shuffle_queue_add(:q3, 5, NULL) AS tracks_after_adding_without_group;
SELECT count(*) AS units FROM shuffle_queue_unit WHERE queue_id = :q3;

-- One group of 4 and one of 1: the fewest neighbours possible is 2 (x?x?x x... needs 4 - 1 - 1).
SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4, 5]::bigint[], groups => '{a,a,a,a,b}') AS q4 \gset
SELECT count(*) AS same_group_neighbours
  FROM (SELECT t, lag(t) OVER (ORDER BY step) AS before
          FROM (SELECT step, CASE WHEN shuffle_queue_next(:q4) = 5 THEN 'b' ELSE 'a' END AS t
                  FROM generate_series(1, 5) step) s) s
 WHERE t = before;

-- The functions, and what dropping leaves.
SELECT shuffle_queue_drop(:q);
SELECT (SELECT count(*) FROM shuffle_queue_unit WHERE queue_id = :q)
     + (SELECT count(*) FROM shuffle_queue_member WHERE queue_id = :q)
     + (SELECT count(*) FROM shuffle_queue_track WHERE queue_id = :q) AS rows_left;
SELECT shuffle_queue_add(NULL, 1, 'x') IS NULL AS add_null_queue,
       shuffle_queue_add(:q2, NULL, 'x') IS NULL AS add_null_item;

-- Errors.
SELECT shuffle_queue_new(ARRAY[1, 2]::bigint[], 'random', groups => '{a,b}');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_new(ARRAY[1, 2]::bigint[], 'shuffle', 1, groups => '{a,b}');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_new(ARRAY[1, 2, 3]::bigint[], groups => '{a,b}');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_new(ARRAY[1, 2]::bigint[], groups => '{a,b}', subgroups => '{x}');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_new(ARRAY[1, 2]::bigint[], subgroups => '{x,y}');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_new('{}'::bigint[], groups => '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_new(ARRAY[1, 1]::bigint[], groups => '{a,b}');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_new(NULL, groups => '{a}');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_add(:q2, 14);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_add(shuffle_queue_create(ARRAY[1, 2]::bigint[]), 3, 'a');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_add(:q3, 6, 'x', 'y');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_add(:q2, 1, 'Abba', 'Arrival');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_add(-1, 1, 'x');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_remove(:q4, 99);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_queue_remove(shuffle_queue_new(ARRAY[1]::bigint[], groups => '{a}'), 1);
\echo :LAST_ERROR_SQLSTATE
