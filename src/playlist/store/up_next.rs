//! The tracks up next (shuffle_queue_up_next) and those skipped when shuffling
//! (shuffle_queue_skipped).

use super::*;

impl<'a, 'conn> QueueStore<'a, 'conn> {
    /// Takes the first track up next (and the count with it); None when none is. For a queue
    /// on a tape (`on_tape`), the same statement finds where the track is, which the jump to
    /// it then asks first ([`Tape::find`]).
    pub fn pop_up_next(&mut self, on_tape: bool) -> Option<i64> {
        if self.extra.up_next == 0 {
            return None;
        }
        const POP: &str = "WITH first AS ( \
                 SELECT seq FROM @extschema@.shuffle_queue_up_next \
                  WHERE queue_id OPERATOR(pg_catalog.=) $1 ORDER BY seq LIMIT 1) \
             DELETE FROM @extschema@.shuffle_queue_up_next u USING first \
              WHERE u.queue_id OPERATOR(pg_catalog.=) $1 AND u.seq OPERATOR(pg_catalog.=) first.seq \
             RETURNING u.track";
        const POP_AND_FIND: &str = "WITH first AS ( \
                 SELECT seq FROM @extschema@.shuffle_queue_up_next \
                  WHERE queue_id OPERATOR(pg_catalog.=) $1 ORDER BY seq LIMIT 1) \
             DELETE FROM @extschema@.shuffle_queue_up_next u USING first \
              WHERE u.queue_id OPERATOR(pg_catalog.=) $1 AND u.seq OPERATOR(pg_catalog.=) first.seq \
             RETURNING u.track, \
                 (SELECT t.position FROM @extschema@.shuffle_queue_track t \
                   WHERE ARRAY[t.queue_id, t.track] OPERATOR(pg_catalog.=) ARRAY[$1, u.track]) \
                 AS position";
        let table = self.run_ids(if on_tape { POP_AND_FIND } else { POP }, &[]);
        let (track, position) = match table.len() {
            0 => (None, None),
            _ => {
                let row = table.first();
                let track: Option<i64> = row.value("track");
                let position = if on_tape { row.value("position") } else { None };
                (track, position)
            }
        };
        let track = track
            .unwrap_or_else(|| self.missing("track up next, where its count says one is".into()));
        if on_tape {
            self.found = Some((track, position));
        }
        self.extra.up_next -= 1;
        Some(track)
    }

    /// Puts tracks up next: before those up next already (`first`), or after them.
    pub fn push_up_next(&mut self, tracks: &[i64], first: bool) {
        let table = self.run_ids(
            "SELECT pg_catalog.min(seq) AS lowest, pg_catalog.max(seq) AS highest \
               FROM @extschema@.shuffle_queue_up_next WHERE queue_id OPERATOR(pg_catalog.=) $1",
            &[],
        );
        let row = table.first();
        let lowest: i64 = row.value("lowest").unwrap_or(1);
        let highest: i64 = row.value("highest").unwrap_or(0);
        let start = if first {
            lowest - tracks.len() as i64
        } else {
            highest + 1
        };
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_up_next (queue_id, seq, track) \
             SELECT $1, $2 OPERATOR(pg_catalog.+) t.ordinality OPERATOR(pg_catalog.-) 1, t.track \
               FROM pg_catalog.unnest($3::bigint[]) WITH ORDINALITY AS t(track, ordinality)",
            &[self.queue_id.into(), start.into(), tracks.to_vec().into()],
        );
        self.extra.up_next += tracks.len() as i64;
    }

    /// The tracks up next, in order.
    pub fn up_next(&mut self) -> Vec<i64> {
        let table = self.run_ids(
            "SELECT track FROM @extschema@.shuffle_queue_up_next \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 ORDER BY seq",
            &[],
        );
        table.map(|row| row.required::<i64>("track")).collect()
    }

    /// Takes every track up next away, or every entry of one track; returns how many.
    pub fn clear_up_next(&mut self, track: Option<i64>) -> i64 {
        if self.extra.up_next == 0 {
            return 0;
        }
        let gone = match track {
            None => self.run_ids(
                "DELETE FROM @extschema@.shuffle_queue_up_next \
                  WHERE queue_id OPERATOR(pg_catalog.=) $1 RETURNING track",
                &[],
            ),
            Some(track) => self.run_ids(
                "DELETE FROM @extschema@.shuffle_queue_up_next \
                  WHERE ARRAY[queue_id, track] OPERATOR(pg_catalog.=) ARRAY[$1, $2] /*citus: AND queue_id OPERATOR(pg_catalog.=) $1 */ \
                 RETURNING track",
                &[track],
            ),
        }
        .len() as i64;
        self.extra.up_next -= gone;
        gone
    }

    /// Whether a track is skipped when shuffling, and the unit of the last level it left (for a
    /// queue spread by group).
    pub fn skipped(&mut self, track: i64) -> Option<Option<i64>> {
        if self.layout == Layout::Before0_5 {
            return None;
        }
        let table = self.run_ids(
            "SELECT unit_id FROM @extschema@.shuffle_queue_skipped \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND track OPERATOR(pg_catalog.=) $2",
            &[track],
        );
        if table.is_empty() {
            return None;
        }
        Some(table.first().value::<i64>("unit_id"))
    }

    /// Marks a track skipped when shuffling (it has left the shuffle), or clears the mark.
    pub fn set_skipped(&mut self, track: i64, unit: Option<Option<i64>>) {
        match unit {
            Some(unit) => {
                self.run(
                    "INSERT INTO @extschema@.shuffle_queue_skipped (queue_id, track, unit_id) \
                     VALUES ($1, $2, $3)",
                    &[self.queue_id.into(), track.into(), unit.into()],
                );
            }
            None => {
                self.run_ids(
                    "DELETE FROM @extschema@.shuffle_queue_skipped \
                      WHERE queue_id OPERATOR(pg_catalog.=) $1 AND track OPERATOR(pg_catalog.=) $2",
                    &[track],
                );
            }
        }
    }

    /// The tracks skipped when shuffling, with their units, by track.
    pub fn all_skipped(&mut self) -> Vec<(i64, Option<i64>)> {
        let table = self.run_ids(
            "SELECT track, unit_id FROM @extschema@.shuffle_queue_skipped \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 ORDER BY track",
            &[],
        );
        table
            .map(|row| (row.required::<i64>("track"), row.value::<i64>("unit_id")))
            .collect()
    }

    /// Marks tracks skipped when shuffling, at once.
    pub fn insert_skipped(&mut self, skipped: &[(i64, Option<i64>)]) {
        let tracks: Vec<i64> = skipped.iter().map(|s| s.0).collect();
        let units: Vec<Option<i64>> = skipped.iter().map(|s| s.1).collect();
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_skipped (queue_id, track, unit_id) \
             SELECT $1, s.track, s.unit_id \
               FROM ROWS FROM (pg_catalog.unnest($2::bigint[]), pg_catalog.unnest($3::bigint[])) \
                    AS s(track, unit_id)",
            &[self.queue_id.into(), tracks.into(), units.into()],
        );
    }
}
