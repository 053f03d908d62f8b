-- Shuffle play for a 10-track playlist (a circular shuffle queue): the tracks are ids, 1..10.
-- The playlist is shuffled once when the queue is made; window 10 / 2 = 5.
SELECT shuffle_queue_create(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]::bigint[]) AS queue \gset
SELECT shuffle_queue_next(:queue);
SELECT shuffle_queue_next(:queue);
-- Previous: back to the track that played before.
SELECT shuffle_queue_prev(:queue);
-- Next replays what came after it; only then are new tracks drawn.
SELECT shuffle_queue_next(:queue);
SELECT shuffle_queue_next(:queue);
SELECT shuffle_queue_current(:queue);
-- The queue's state: its pointers in one row, one row per position.
SELECT mode, window_size, tracks, front, history, behind FROM shuffle_queue WHERE queue_id = :queue;
-- Editing keeps what played: a new track goes somewhere among those not played yet.
SELECT shuffle_queue_add(:queue, 11) AS tracks;
SELECT shuffle_queue_remove(:queue, 4) AS tracks;
-- Random play: with replacement, but never one of the last 3 tracks.
SELECT shuffle_queue_create(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]::bigint[], 'random', 3) AS radio \gset
SELECT string_agg(shuffle_queue_next(:radio)::text, ' ') AS twenty_random_picks
  FROM generate_series(1, 20);
SELECT shuffle_queue_drop(:queue);
SELECT shuffle_queue_drop(:radio);
