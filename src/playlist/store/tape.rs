//! A plain queue's tape (shuffle_queue_track) and a weighted queue's weights
//! (shuffle_queue_weight): the statements of [`Tape`], and those that create, save and restore
//! them.

use super::*;

/// The statement of a pick: the tape's row at position `front` becomes position `end` holding
/// the track at position `drawn`, and the row at `drawn` takes the front track (when drawn =
/// front, the row just moves to `end`); returns the rows changed. `from` names what the
/// positions read besides the tape (`"chosen, "` when `drawn` is a column of a CTE).
macro_rules! pick_sql {
    ($from:literal, $front:literal, $drawn:literal, $end:literal) => {
        concat!(
            "UPDATE @extschema@.shuffle_queue_track t \
                SET position = CASE WHEN t.position OPERATOR(pg_catalog.=) ",
            $front,
            " \
                                    THEN ",
            $end,
            " ELSE t.position END, \
                    track = other.track \
               FROM ",
            $from,
            "@extschema@.shuffle_queue_track other \
              WHERE t.queue_id OPERATOR(pg_catalog.=) $1 \
                AND t.position OPERATOR(pg_catalog.=) ANY (ARRAY[",
            $front,
            ", ",
            $drawn,
            "]) \
                AND other.queue_id OPERATOR(pg_catalog.=) $1 \
                AND other.position OPERATOR(pg_catalog.=) \
                    CASE WHEN t.position OPERATOR(pg_catalog.=) ",
            $front,
            " \
                         THEN ",
            $drawn,
            " ELSE ",
            $front,
            " END \
             RETURNING t.position, t.track"
        )
    };
}

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
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_track (queue_id, position, track) \
             SELECT $1, $2 OPERATOR(pg_catalog.+) t.ordinality OPERATOR(pg_catalog.-) 1, t.track \
               FROM pg_catalog.unnest($3::bigint[]) WITH ORDINALITY AS t(track, ordinality)",
            &[self.queue_id.into(), front.into(), tracks.into()],
        );
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
        let table = self.run_ids(
            "SELECT position FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND track OPERATOR(pg_catalog.=) $2",
            &[track],
        );
        first_value(table)
    }

    fn pick(&mut self, front: i64, drawn: i64, end: i64) -> i64 {
        let table = self.run_ids(pick_sql!("", "$2", "$3", "$4"), &[front, drawn, end]);
        let mut played = None;
        for row in table {
            if row.required::<i64>("position") == end {
                played = Some(row.required::<i64>("track"));
            }
        }
        played.unwrap_or_else(|| self.missing_position(drawn))
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
        self.run_ids(
            "UPDATE @extschema@.shuffle_queue_track t SET track = n.track \
               FROM @extschema@.shuffle_queue_track n \
              WHERE t.queue_id OPERATOR(pg_catalog.=) $1 \
                AND t.position OPERATOR(pg_catalog.>=) $2 AND t.position OPERATOR(pg_catalog.<) $3 \
                AND n.queue_id OPERATOR(pg_catalog.=) $1 \
                AND n.position OPERATOR(pg_catalog.=) (t.position OPERATOR(pg_catalog.+) 1)",
            &[hole, last],
        );
        self.run_ids(
            "DELETE FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $2",
            &[last],
        );
    }

    fn swap(&mut self, a: i64, b: i64) {
        let swapped = self.run_ids(
            "UPDATE @extschema@.shuffle_queue_track t SET track = other.track \
               FROM @extschema@.shuffle_queue_track other \
              WHERE t.queue_id OPERATOR(pg_catalog.=) $1 \
                AND t.position OPERATOR(pg_catalog.=) ANY (ARRAY[$2, $3]) \
                AND other.queue_id OPERATOR(pg_catalog.=) $1 \
                AND other.position OPERATOR(pg_catalog.=) \
                    CASE WHEN t.position OPERATOR(pg_catalog.=) $2 THEN $3 ELSE $2 END \
             RETURNING t.position",
            &[a, b],
        );
        if swapped.len() != 2 {
            // Either row missing leaves both unchanged: name the one that is.
            self.track_at(a);
            self.missing_position(b);
        }
    }

    fn weights(&mut self, positions: &[i64]) -> Vec<u64> {
        // Four places, always (the core asks for four), so that the statement keeps one plan.
        let table = self.run_ids(
            "SELECT t.position, w.weight \
               FROM @extschema@.shuffle_queue_track t \
               JOIN @extschema@.shuffle_queue_weight w \
                 ON w.queue_id OPERATOR(pg_catalog.=) $1 AND w.track OPERATOR(pg_catalog.=) t.track \
              WHERE t.queue_id OPERATOR(pg_catalog.=) $1 \
                AND t.position OPERATOR(pg_catalog.=) ANY (ARRAY[$2, $3, $4, $5])",
            &[positions[0], positions[1], positions[2], positions[3]],
        );
        let found: Vec<(i64, i32)> = table
            .map(|row| (row.required("position"), row.required("weight")))
            .collect();
        positions
            .iter()
            .map(|p| {
                found
                    .iter()
                    .find(|f| f.0 == *p)
                    .map(|f| f.1 as u64)
                    .unwrap_or_else(|| self.missing(format!("weight of the track at position {p}")))
            })
            .collect()
    }

    fn pick_weighted(&mut self, front: i64, tries: &[(i64, u64)], end: i64) -> Option<i64> {
        // One statement for the core's four tries: the weights of the tracks at the tried
        // places, the first try below its weight, and its pick (`pick`'s statement). A track without a
        // weight row picks nothing and is named, whichever try it is.
        let mut more: Vec<i64> = tries.iter().map(|t| t.0).collect();
        more.extend(tries.iter().map(|t| t.1 as i64));
        more.extend([front, end]);
        let table = self.run_ids(
            concat!(
                "WITH looked AS ( \
                 SELECT x.n, x.place, x.v, w.weight \
                   FROM (VALUES (1, $2::pg_catalog.int8, $6::pg_catalog.int8), \
                                (2, $3::pg_catalog.int8, $7::pg_catalog.int8), \
                                (3, $4::pg_catalog.int8, $8::pg_catalog.int8), \
                                (4, $5::pg_catalog.int8, $9::pg_catalog.int8)) AS x (n, place, v) \
                   LEFT JOIN @extschema@.shuffle_queue_track t \
                     ON t.queue_id OPERATOR(pg_catalog.=) $1 \
                    AND t.position OPERATOR(pg_catalog.=) x.place \
                   LEFT JOIN @extschema@.shuffle_queue_weight w \
                     ON w.queue_id OPERATOR(pg_catalog.=) $1 \
                    AND w.track OPERATOR(pg_catalog.=) t.track), \
             chosen AS ( \
                 SELECT place FROM looked \
                  WHERE v OPERATOR(pg_catalog.<) weight \
                    AND NOT EXISTS (SELECT FROM looked m WHERE m.weight IS NULL) \
                  ORDER BY n LIMIT 1), \
             picked AS (",
                pick_sql!("chosen, ", "$10", "chosen.place", "$11"),
                ") \
             SELECT (SELECT p.track FROM picked p WHERE p.position OPERATOR(pg_catalog.=) $11) \
                        AS track, \
                    (SELECT pg_catalog.min(place) FROM looked WHERE weight IS NULL) AS missing, \
                    (SELECT pg_catalog.count(*) FROM chosen) AS chosen"
            ),
            &more,
        );
        let row = table.first();
        if let Some(place) = row.value::<i64>("missing") {
            self.missing(format!("weight of the track at position {place}"));
        }
        let track = row.value::<i64>("track");
        if track.is_none() && row.required::<i64>("chosen") > 0 {
            self.missing_position(front);
        }
        track
    }

    fn close_up(&mut self, front: i64, start: i64, hole: i64) {
        self.run_ids(
            "UPDATE @extschema@.shuffle_queue_track t SET track = p.track \
               FROM @extschema@.shuffle_queue_track p \
              WHERE t.queue_id OPERATOR(pg_catalog.=) $1 \
                AND t.position OPERATOR(pg_catalog.>) $2 AND t.position OPERATOR(pg_catalog.<=) $3 \
                AND p.queue_id OPERATOR(pg_catalog.=) $1 \
                AND p.position OPERATOR(pg_catalog.=) (t.position OPERATOR(pg_catalog.-) 1)",
            &[start, hole],
        );
        Tape::fill_from_front(self, front, start);
    }
}
