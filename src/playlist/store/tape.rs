//! A plain queue's tape (shuffle_queue_track) and a weighted queue's weights
//! (shuffle_queue_weight): the statements of [`Tape`], and those that create, save and restore
//! them.

use super::*;

/// The statement that gives the row at position `$2` the track at position `$3` and returns the
/// track the row held: every row it reads is reached by its whole key (queue, position), so
/// that no statistics, however stale, give it another plan than three lookups of one row.
const TAKE_TRACK_OF: &str = "UPDATE @extschema@.shuffle_queue_track t SET track = f.track \
       FROM @extschema@.shuffle_queue_track f, @extschema@.shuffle_queue_track old \
      WHERE t.queue_id OPERATOR(pg_catalog.=) $1 AND t.position OPERATOR(pg_catalog.=) $2 \
        AND f.queue_id OPERATOR(pg_catalog.=) $1 AND f.position OPERATOR(pg_catalog.=) $3 \
        AND old.queue_id OPERATOR(pg_catalog.=) $1 AND old.position OPERATOR(pg_catalog.=) $2 \
     RETURNING old.track";

/// The history shifts of a removal ([`Tape::close_down`], [`Tape::close_up`]): the rows at
/// positions `$2 .. $3` (down: `$2 ..= $3 - 1`; up: `$2 + 1 ..= $3`) take the tracks `$4` read
/// before from their neighbours, in position order. One statement on one key range, no join:
/// whatever the statistics, it reads the rows it writes and no others (a self-join on
/// position - 1 can be planned as a loop over the whole queue for each row shifted).
const SHIFT_DOWN: &str = "UPDATE @extschema@.shuffle_queue_track \
        SET track = ($4::pg_catalog.int8[])[(position OPERATOR(pg_catalog.-) $2 \
                                             OPERATOR(pg_catalog.+) 1)::pg_catalog.int4] \
      WHERE queue_id OPERATOR(pg_catalog.=) $1 \
        AND position OPERATOR(pg_catalog.>=) $2 AND position OPERATOR(pg_catalog.<) $3";
const SHIFT_UP: &str = "UPDATE @extschema@.shuffle_queue_track \
        SET track = ($4::pg_catalog.int8[])[(position OPERATOR(pg_catalog.-) $2)::pg_catalog.int4] \
      WHERE queue_id OPERATOR(pg_catalog.=) $1 \
        AND position OPERATOR(pg_catalog.>) $2 AND position OPERATOR(pg_catalog.<=) $3";

impl<'a, 'conn> QueueStore<'a, 'conn> {
    /// A new plain queue's tape: positions 0 .. tracks - 1 in the order given, one statement
    /// for the whole playlist.
    pub fn insert_tape(&mut self, tracks: DatumWithOid) {
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_track (queue_id, position, track) \
             SELECT $1, t.ordinality OPERATOR(pg_catalog.-) 1, t.track \
               FROM pg_catalog.unnest($2::bigint[]) WITH ORDINALITY AS t(track, ordinality)",
            &[self.queue_id.into(), tracks],
        );
    }

    /// The tracks of the queue's rows of shuffle_queue_track, by position.
    pub fn tape(&mut self) -> Vec<i64> {
        let table = self.run_ids(
            "SELECT track FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 ORDER BY position",
            &[],
        );
        table.map(|row| row.required::<i64>("track")).collect()
    }

    /// Rows of shuffle_queue_track at positions `front`, `front + 1`, ... holding `tracks`.
    pub fn insert_tape_at(&mut self, front: i64, tracks: Vec<i64>) {
        if tracks.is_empty() {
            // As in shift_tracks: no empty array is bound.
            return;
        }
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_track (queue_id, position, track) \
             SELECT $1, $2 OPERATOR(pg_catalog.+) t.ordinality OPERATOR(pg_catalog.-) 1, t.track \
               FROM pg_catalog.unnest($3::bigint[]) WITH ORDINALITY AS t(track, ordinality)",
            &[self.queue_id.into(), front.into(), tracks.into()],
        );
    }

    /// The tracks at positions `from ..= to`, in position order: one key range of the primary
    /// key, the only index a statement on the plain columns can use.
    fn tracks_between(&mut self, from: i64, to: i64) -> Vec<i64> {
        let table = self.run_ids(
            "SELECT track FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 \
                AND position OPERATOR(pg_catalog.>=) $2 AND position OPERATOR(pg_catalog.<=) $3 \
              ORDER BY position",
            &[from, to],
        );
        let tracks: Vec<i64> = table.map(|row| row.required::<i64>("track")).collect();
        if tracks.len() as i64 != to - from + 1 {
            self.missing(format!("history at positions {from} to {to}"));
        }
        tracks
    }

    /// Runs a history shift (`SHIFT_DOWN` or `SHIFT_UP`) of the rows between `from` and `to`.
    fn shift_tracks(&mut self, sql: &'static str, from: i64, to: i64, tracks: Vec<i64>) {
        // Nothing to move (the hole at the edge of the history). Not bound as an empty array
        // either: pgrx gives an empty Vec one dimension of length 0, which PostgreSQL's own
        // empty array never has, and which Citus, printing the parameter into the statement it
        // sends a shard, does not survive.
        if tracks.is_empty() {
            return;
        }
        let count = tracks.len();
        let shifted = self.run(
            sql,
            &[self.queue_id.into(), from.into(), to.into(), tracks.into()],
        );
        if shifted.len() != count {
            self.missing(format!("history at positions {from} to {to}"));
        }
    }

    /// A weighted queue's weights: one row per track (in the shuffle or skipped).
    pub fn insert_weights(&mut self, tracks: Vec<i64>, weights: Vec<i32>) {
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_weight (queue_id, track, weight) \
             SELECT $1, w.track, w.weight \
               FROM ROWS FROM (pg_catalog.unnest($2::bigint[]), pg_catalog.unnest($3::integer[])) \
                    AS w(track, weight)",
            &[self.queue_id.into(), tracks.into(), weights.into()],
        );
    }

    /// Forgets a removed track's weight.
    pub fn delete_weight(&mut self, track: i64) {
        self.run_ids(
            "DELETE FROM @extschema@.shuffle_queue_weight \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND track OPERATOR(pg_catalog.=) $2",
            &[track],
        );
    }

    /// A weighted queue's weights, by track.
    pub fn all_weights(&mut self) -> Vec<(i64, i64)> {
        let table = self.run_ids(
            "SELECT track, weight FROM @extschema@.shuffle_queue_weight \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 ORDER BY track",
            &[],
        );
        table
            .map(|row| {
                (
                    row.required::<i64>("track"),
                    row.required::<i32>("weight") as i64,
                )
            })
            .collect()
    }
}

impl Tape for QueueStore<'_, '_> {
    fn track_at(&mut self, position: i64) -> i64 {
        let table = self.run_ids(
            "SELECT track FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $2",
            &[position],
        );
        first_value(table).unwrap_or_else(|| self.missing_position(position))
    }

    fn find(&mut self, track: i64) -> Option<i64> {
        if let Some((found, position)) = self.found.take() {
            if found == track {
                return position;
            }
        }
        // Through shuffle_queue_track_track, the only index the array names.
        let table = self.run_ids(
            "SELECT position FROM @extschema@.shuffle_queue_track \
              WHERE ARRAY[queue_id, track] OPERATOR(pg_catalog.=) ARRAY[$1, $2] /*citus: AND queue_id OPERATOR(pg_catalog.=) $1 */",
            &[track],
        );
        first_value(table)
    }

    fn pick(&mut self, front: i64, drawn: i64, end: i64) -> i64 {
        // The drawn row takes the front track; the front row moves to `end` with the drawn
        // track, the one played (the front row itself when it is the one drawn). Each
        // statement reaches its rows by their whole key.
        if drawn == front {
            let moved = self.run_ids(
                "UPDATE @extschema@.shuffle_queue_track SET position = $3 \
                  WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $2 \
                 RETURNING track",
                &[front, end],
            );
            return first_value(moved).unwrap_or_else(|| self.missing_position(front));
        }
        let taken = self.run_ids(TAKE_TRACK_OF, &[drawn, front]);
        let played = first_value(taken).unwrap_or_else(|| self.missing_position(drawn));
        let moved = self.run_ids(
            "UPDATE @extschema@.shuffle_queue_track SET position = $3, track = $4 \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $2",
            &[front, end, played],
        );
        if moved.is_empty() {
            self.missing_position(front);
        }
        played
    }

    fn insert_front(&mut self, new_front: i64, target: i64, track: i64) {
        if target == new_front {
            self.run_ids(
                "INSERT INTO @extschema@.shuffle_queue_track (queue_id, position, track) \
                 VALUES ($1, $2, $3)",
                &[new_front, track],
            );
            return;
        }
        let moved = self.run_ids(
            "INSERT INTO @extschema@.shuffle_queue_track (queue_id, position, track) \
             SELECT $1, $2, track FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $3",
            &[new_front, target],
        );
        if moved.len() != 1 {
            self.missing_position(target);
        }
        self.run_ids(
            "UPDATE @extschema@.shuffle_queue_track SET track = $3 \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $2",
            &[target, track],
        );
    }

    fn fill_from_front(&mut self, front: i64, hole: i64) {
        if hole != front {
            self.run_ids(
                "UPDATE @extschema@.shuffle_queue_track t SET track = f.track \
                   FROM @extschema@.shuffle_queue_track f \
                  WHERE t.queue_id OPERATOR(pg_catalog.=) $1 AND t.position OPERATOR(pg_catalog.=) $3 \
                    AND f.queue_id OPERATOR(pg_catalog.=) $1 AND f.position OPERATOR(pg_catalog.=) $2",
                &[front, hole],
            );
        }
        self.run_ids(
            "DELETE FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $2",
            &[front],
        );
    }

    fn close_down(&mut self, hole: i64, last: i64) {
        // Positions hole .. last - 1 take the tracks of hole + 1 ..= last.
        let tracks = self.tracks_between(hole + 1, last);
        self.shift_tracks(SHIFT_DOWN, hole, last, tracks);
        self.run_ids(
            "DELETE FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $2",
            &[last],
        );
    }

    fn swap(&mut self, a: i64, b: i64) {
        // Row a takes b's track, then row b takes a's former one: each row by its whole key.
        let taken = self.run_ids(TAKE_TRACK_OF, &[a, b]);
        let former: i64 = first_value(taken).unwrap_or_else(|| {
            // Either row missing leaves both unchanged: name the one that is.
            self.track_at(a);
            self.missing_position(b)
        });
        let set = self.run_ids(
            "UPDATE @extschema@.shuffle_queue_track SET track = $3 \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $2 \
             RETURNING position",
            &[b, former],
        );
        if set.is_empty() {
            self.missing_position(b);
        }
    }

    fn weights(&mut self, positions: &[i64]) -> Vec<u64> {
        // Four places, always (the core asks for four), so that the statement keeps one plan:
        // each place's track, then its weight, each a lookup of one row by its whole key.
        let table = self.run_ids(
            "SELECT x.place AS position, \
                    (SELECT w.weight FROM @extschema@.shuffle_queue_weight w \
                      WHERE w.queue_id OPERATOR(pg_catalog.=) $1 \
                        AND w.track OPERATOR(pg_catalog.=) \
                            (SELECT t.track FROM @extschema@.shuffle_queue_track t \
                              WHERE t.queue_id OPERATOR(pg_catalog.=) $1 \
                                AND t.position OPERATOR(pg_catalog.=) x.place)) AS weight \
               FROM (VALUES (1, $2::pg_catalog.int8), (2, $3::pg_catalog.int8), \
                            (3, $4::pg_catalog.int8), (4, $5::pg_catalog.int8)) AS x (n, place) \
              ORDER BY x.n",
            &[positions[0], positions[1], positions[2], positions[3]],
        );
        let found: Vec<(i64, Option<i32>)> = table
            .map(|row| (row.required("position"), row.value("weight")))
            .collect();
        positions
            .iter()
            .map(|p| {
                found
                    .iter()
                    .find(|f| f.0 == *p)
                    .and_then(|f| f.1)
                    .map(|w| w as u64)
                    .unwrap_or_else(|| self.missing(format!("weight of the track at position {p}")))
            })
            .collect()
    }

    fn close_up(&mut self, front: i64, start: i64, hole: i64) {
        // Positions start + 1 ..= hole take the tracks of start .. hole - 1.
        let tracks = self.tracks_between(start, hole - 1);
        self.shift_tracks(SHIFT_UP, start, hole, tracks);
        Tape::fill_from_front(self, front, start);
    }
}
