//! The statements of many tracks added to or removed from a plain queue at once
//! (shuffle_queue_add and shuffle_queue_remove with arrays): the queue's operations run in
//! memory on the positions they touch, read before in a few statements, and the rows they
//! changed are written after, each kind of change in one statement over arrays.
//!
//! A statement over an array reaches each row by its whole key, one lookup an element of the
//! array (`unnest` joined LATERAL to a subquery that OFFSET 0 keeps a loop over it), and
//! deletes the rows so found by their ctids: `queue_id = $1 AND position = ANY ($2)` was planned,
//! with statistics taken while the queues were small, as an index scan on `queue_id` alone that
//! filtered every row of the queue (PostgreSQL 14 to 16).

use std::collections::{HashMap, HashSet};

use super::*;

/// An add's change to the tape, as [`Tape::insert_front`] is given it.
pub type FrontInsert = (i64, i64, i64);

/// The tape of a run of adds, which touch no row while they draw: each add's change is kept, to
/// be written by [`QueueStore::write_adds`]. An add only asks where its track is; the caller
/// has refused every track the queue holds.
pub struct AddedFronts(pub Vec<FrontInsert>);

impl Tape for AddedFronts {
    fn find(&mut self, _track: i64) -> Option<i64> {
        None
    }

    fn insert_front(&mut self, new_front: i64, target: i64, track: i64) {
        self.0.push((new_front, target, track));
    }

    fn track_at(&mut self, _position: i64) -> i64 {
        unreachable!("an add reads no track")
    }

    fn pick(&mut self, _front: i64, _drawn: i64, _end: i64) -> i64 {
        unreachable!("an add picks no track")
    }

    fn fill_from_front(&mut self, _front: i64, _hole: i64) {
        unreachable!("an add removes no track")
    }

    fn close_down(&mut self, _hole: i64, _last: i64) {
        unreachable!("an add removes no track")
    }

    fn close_up(&mut self, _front: i64, _start: i64, _hole: i64) {
        unreachable!("an add removes no track")
    }

    fn swap(&mut self, _a: i64, _b: i64) {
        unreachable!("an add swaps no tracks")
    }
}

/// The tape of a run of removals: the positions they read, loaded before (where the tracks are,
/// the front, the history when a track is in it) or one by one if ever another one is asked,
/// and changed in memory; [`RemovedTracks::write`] writes what changed.
pub struct RemovedTracks<'s, 'a, 'conn> {
    store: &'s mut QueueStore<'a, 'conn>,
    /// The tracks of the positions read, as the table holds them.
    before: HashMap<i64, i64>,
    /// The same positions now (None: no longer a position).
    now: HashMap<i64, Option<i64>>,
    /// Where each track of `now` is.
    at: HashMap<i64, i64>,
}

impl<'s, 'a, 'conn> RemovedTracks<'s, 'a, 'conn> {
    /// Loads the positions the removal of `tracks` from `queue` reads.
    pub fn load(
        store: &'s mut QueueStore<'a, 'conn>,
        queue: &Queue,
        tracks: &[i64],
    ) -> RemovedTracks<'s, 'a, 'conn> {
        let mut rows = store.positions_of(tracks);
        let front = queue.front;
        let last = front + queue.tracks as i64 - 1;
        let count = tracks.len() as i64;
        rows.extend(store.rows_between(front, (front + count - 1).min(last)));
        let start = last + 1 - queue.history as i64;
        if queue.history > 0 && rows.iter().any(|&(p, _)| p >= start) {
            rows.extend(store.rows_between(start, last));
        }
        let mut tape = RemovedTracks {
            store,
            before: HashMap::new(),
            now: HashMap::new(),
            at: HashMap::new(),
        };
        for (position, track) in rows {
            tape.known(position, track);
        }
        tape
    }

    /// The store, for what the removals change besides the tape.
    pub fn store(&mut self) -> &mut QueueStore<'a, 'conn> {
        self.store
    }

    fn known(&mut self, position: i64, track: i64) {
        if self.before.insert(position, track).is_none() {
            self.now.insert(position, Some(track));
            self.at.insert(track, position);
        }
    }

    fn get(&mut self, position: i64) -> i64 {
        if !self.now.contains_key(&position) {
            let track = Tape::track_at(self.store, position);
            self.known(position, track);
        }
        self.now[&position].unwrap_or_else(|| self.store.missing_position(position))
    }

    fn set(&mut self, position: i64, track: Option<i64>) {
        self.get(position);
        if let Some(Some(old)) = self.now.insert(position, track) {
            if self.at.get(&old) == Some(&position) {
                self.at.remove(&old);
            }
        }
        if let Some(track) = track {
            self.at.insert(track, position);
        }
    }

    /// Writes the positions that changed: those gone deleted, the others given their tracks.
    pub fn write(self) {
        let mut gone = Vec::new();
        let (mut moved, mut moved_tracks) = (Vec::new(), Vec::new());
        // In position order: each index is written where the last row went, page after page.
        let mut now: Vec<(&i64, &Option<i64>)> = self.now.iter().collect();
        now.sort_unstable();
        for (&position, &track) in now {
            match track {
                None => gone.push(position),
                Some(t) if t != self.before[&position] => {
                    moved.push(position);
                    moved_tracks.push(t);
                }
                Some(_) => {}
            }
        }
        // The positions changed are deleted and inserted again with their new tracks, so that
        // every statement reaches its rows through the key's index by the array (an UPDATE
        // joined to the arrays could be planned as a loop over the whole queue).
        gone.extend(&moved);
        self.store.delete_positions(gone);
        if !moved.is_empty() {
            self.store.insert_positions(moved, moved_tracks);
        }
    }
}

impl Tape for RemovedTracks<'_, '_, '_> {
    fn track_at(&mut self, position: i64) -> i64 {
        self.get(position)
    }

    fn find(&mut self, track: i64) -> Option<i64> {
        self.at.get(&track).copied()
    }

    fn pick(&mut self, _front: i64, _drawn: i64, _end: i64) -> i64 {
        unreachable!("a removal picks no track")
    }

    fn insert_front(&mut self, _new_front: i64, _target: i64, _track: i64) {
        unreachable!("a removal adds no track")
    }

    fn fill_from_front(&mut self, front: i64, hole: i64) {
        // The hole takes the front track (its own when it is the front), and the front goes.
        let moved = self.get(front);
        self.set(hole, Some(moved));
        self.set(front, None);
    }

    fn close_down(&mut self, hole: i64, last: i64) {
        for position in hole..last {
            pgrx::check_for_interrupts!();
            let track = self.get(position + 1);
            self.set(position, Some(track));
        }
        self.set(last, None);
    }

    fn close_up(&mut self, front: i64, start: i64, hole: i64) {
        for position in (start..hole).rev() {
            pgrx::check_for_interrupts!();
            let track = self.get(position);
            self.set(position + 1, Some(track));
        }
        self.fill_from_front(front, start);
    }

    fn swap(&mut self, a: i64, b: i64) {
        let (ta, tb) = (self.get(a), self.get(b));
        self.set(a, Some(tb));
        self.set(b, Some(ta));
    }
}

impl QueueStore<'_, '_> {
    /// The first of `tracks` the queue holds, in the shuffle or skipped when shuffling, and
    /// whether it is skipped.
    pub fn first_held(&mut self, tracks: &[i64]) -> Option<(i64, bool)> {
        let table = self.run(
            "SELECT i.track, \
                    EXISTS (SELECT FROM @extschema@.shuffle_queue_skipped s \
                             WHERE s.queue_id OPERATOR(pg_catalog.=) $1 \
                               AND s.track OPERATOR(pg_catalog.=) i.track) AS skipped \
               FROM pg_catalog.unnest($2::pg_catalog.int8[]) WITH ORDINALITY AS i (track, n) \
              WHERE EXISTS (SELECT FROM @extschema@.shuffle_queue_track t \
                             WHERE ARRAY[t.queue_id, t.track] OPERATOR(pg_catalog.=) ARRAY[$1, i.track] \
                               /*citus: AND t.queue_id OPERATOR(pg_catalog.=) $1 */) \
                 OR EXISTS (SELECT FROM @extschema@.shuffle_queue_skipped s \
                             WHERE s.queue_id OPERATOR(pg_catalog.=) $1 \
                               AND s.track OPERATOR(pg_catalog.=) i.track) \
              ORDER BY i.n LIMIT 1",
            &[self.queue_id.into(), tracks.to_vec().into()],
        );
        if table.is_empty() {
            return None;
        }
        let row = table.first();
        Some((row.required("track"), row.required("skipped")))
    }

    /// Which of `tracks` are skipped when shuffling.
    pub fn skipped_among(&mut self, tracks: &[i64]) -> HashSet<i64> {
        let table = self.run(
            "SELECT x.track FROM pg_catalog.unnest($2::pg_catalog.int8[]) AS i (track), \
                    LATERAL (SELECT s.track FROM @extschema@.shuffle_queue_skipped s \
                              WHERE s.queue_id OPERATOR(pg_catalog.=) $1 \
                                AND s.track OPERATOR(pg_catalog.=) i.track OFFSET 0) AS x",
            &[self.queue_id.into(), tracks.to_vec().into()],
        );
        table.map(|row| row.required::<i64>("track")).collect()
    }

    /// Where each of `tracks` the tape holds is: (position, track).
    fn positions_of(&mut self, tracks: &[i64]) -> Vec<(i64, i64)> {
        let table = self.run(
            // A lookup per track, the array's element first (OFFSET 0 keeps the subquery a
            // loop over it): whatever the statistics, no plan reads the whole queue.
            "SELECT x.position, x.track FROM pg_catalog.unnest($2::pg_catalog.int8[]) AS i (track), \
                    LATERAL (SELECT t.position, t.track FROM @extschema@.shuffle_queue_track t \
                              WHERE ARRAY[t.queue_id, t.track] OPERATOR(pg_catalog.=) ARRAY[$1, i.track] \
                               /*citus: AND t.queue_id OPERATOR(pg_catalog.=) $1 */ \
                             OFFSET 0) AS x",
            &[self.queue_id.into(), tracks.to_vec().into()],
        );
        table
            .map(|row| (row.required("position"), row.required("track")))
            .collect()
    }

    /// The rows at positions `from ..= to`: (position, track).
    fn rows_between(&mut self, from: i64, to: i64) -> Vec<(i64, i64)> {
        let table = self.run_ids(
            "SELECT position, track FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 \
                AND position OPERATOR(pg_catalog.>=) $2 AND position OPERATOR(pg_catalog.<=) $3",
            &[from, to],
        );
        table
            .map(|row| (row.required("position"), row.required("track")))
            .collect()
    }

    /// The tracks at `positions` (each one there), by position.
    fn tracks_at(&mut self, positions: Vec<i64>) -> HashMap<i64, i64> {
        let count = positions.len();
        let rows: HashMap<i64, i64> = {
            let table = self.run(
                "SELECT x.position, x.track FROM pg_catalog.unnest($2::pg_catalog.int8[]) AS p (position), \
                        LATERAL (SELECT t.position, t.track FROM @extschema@.shuffle_queue_track t \
                                  WHERE t.queue_id OPERATOR(pg_catalog.=) $1 \
                                    AND t.position OPERATOR(pg_catalog.=) p.position OFFSET 0) AS x",
                &[self.queue_id.into(), positions.into()],
            );
            table
                .map(|row| (row.required("position"), row.required("track")))
                .collect()
        };
        if rows.len() != count {
            self.missing(format!("{count} tracks at the places drawn"));
        }
        rows
    }

    fn delete_positions(&mut self, positions: Vec<i64>) {
        if positions.is_empty() {
            return;
        }
        let count = positions.len();
        let gone = self.run(
            "DELETE FROM @extschema@.shuffle_queue_track \
              WHERE ctid OPERATOR(pg_catalog.=) ANY (ARRAY( \
                      SELECT x.ctid FROM pg_catalog.unnest($2::pg_catalog.int8[]) AS p (position), \
                             LATERAL (SELECT t.ctid FROM @extschema@.shuffle_queue_track t \
                                       WHERE t.queue_id OPERATOR(pg_catalog.=) $1 \
                                         AND t.position OPERATOR(pg_catalog.=) p.position OFFSET 0) AS x)) \
                    /*citus: AND queue_id OPERATOR(pg_catalog.=) $1 */",
            &[self.queue_id.into(), positions.into()],
        );
        if gone.len() != count {
            self.missing(format!("{count} positions to take out"));
        }
    }

    /// New rows at `positions` holding `tracks`.
    fn insert_positions(&mut self, positions: Vec<i64>, tracks: Vec<i64>) {
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_track (queue_id, position, track) \
             SELECT $1, n.position, n.track \
               FROM ROWS FROM (pg_catalog.unnest($2::pg_catalog.int8[]), \
                               pg_catalog.unnest($3::pg_catalog.int8[])) AS n (position, track)",
            &[self.queue_id.into(), positions.into(), tracks.into()],
        );
    }

    /// Writes a run of adds to a tape whose front was `old_front`: the positions drawn on the
    /// tape take their new tracks, and the new positions at the front are inserted with theirs.
    pub fn write_adds(&mut self, old_front: i64, adds: &[FrontInsert]) {
        let drawn: Vec<i64> = adds
            .iter()
            .map(|a| a.1)
            .filter(|&p| p >= old_front)
            .collect::<HashSet<i64>>()
            .into_iter()
            .collect();
        let mut now = self.tracks_at(drawn);
        for (i, &(new_front, target, track)) in adds.iter().enumerate() {
            if i % 1024 == 0 {
                pgrx::check_for_interrupts!();
            }
            if target != new_front {
                let moved = now[&target];
                now.insert(new_front, moved);
            }
            now.insert(target, track);
        }
        // The positions drawn on the tape are deleted and inserted again with their new tracks,
        // with the new positions at the front.
        // In position order: each index is written where the last row went, page after page.
        let mut rows: Vec<(i64, i64)> = now.into_iter().collect();
        rows.sort_unstable();
        let (positions, tracks): (Vec<i64>, Vec<i64>) = rows.into_iter().unzip();
        self.delete_positions(
            positions
                .iter()
                .copied()
                .filter(|&p| p >= old_front)
                .collect(),
        );
        self.insert_positions(positions, tracks);
    }

    /// Clears the marks of tracks skipped when shuffling.
    pub fn unskip(&mut self, tracks: Vec<i64>) {
        if tracks.is_empty() {
            return;
        }
        self.run(
            "DELETE FROM @extschema@.shuffle_queue_skipped \
              WHERE ctid OPERATOR(pg_catalog.=) ANY (ARRAY( \
                      SELECT x.ctid FROM pg_catalog.unnest($2::pg_catalog.int8[]) AS i (track), \
                             LATERAL (SELECT s.ctid FROM @extschema@.shuffle_queue_skipped s \
                                       WHERE s.queue_id OPERATOR(pg_catalog.=) $1 \
                                         AND s.track OPERATOR(pg_catalog.=) i.track OFFSET 0) AS x)) \
                    /*citus: AND queue_id OPERATOR(pg_catalog.=) $1 */",
            &[self.queue_id.into(), tracks.into()],
        );
    }

    /// Takes every entry of these tracks off the list up next.
    pub fn clear_up_next_of(&mut self, tracks: &[i64]) {
        if self.extra.up_next == 0 {
            return;
        }
        let gone = self.run(
            "DELETE FROM @extschema@.shuffle_queue_up_next \
              WHERE ctid OPERATOR(pg_catalog.=) ANY (ARRAY( \
                      SELECT x.ctid FROM pg_catalog.unnest($2::pg_catalog.int8[]) AS i (track), \
                             LATERAL (SELECT u.ctid FROM @extschema@.shuffle_queue_up_next u \
                                       WHERE ARRAY[u.queue_id, u.track] OPERATOR(pg_catalog.=) ARRAY[$1, i.track] \
                                       /*citus: AND u.queue_id OPERATOR(pg_catalog.=) $1 */ OFFSET 0) AS x)) \
                    /*citus: AND queue_id OPERATOR(pg_catalog.=) $1 */ \
             RETURNING track",
            &[self.queue_id.into(), tracks.to_vec().into()],
        );
        self.extra.up_next -= gone.len() as i64;
    }

    /// Forgets removed tracks' weights.
    pub fn delete_weights(&mut self, tracks: &[i64]) {
        self.run(
            "DELETE FROM @extschema@.shuffle_queue_weight \
              WHERE ctid OPERATOR(pg_catalog.=) ANY (ARRAY( \
                      SELECT x.ctid FROM pg_catalog.unnest($2::pg_catalog.int8[]) AS i (track), \
                             LATERAL (SELECT w.ctid FROM @extschema@.shuffle_queue_weight w \
                                       WHERE w.queue_id OPERATOR(pg_catalog.=) $1 \
                                         AND w.track OPERATOR(pg_catalog.=) i.track OFFSET 0) AS x)) \
                    /*citus: AND queue_id OPERATOR(pg_catalog.=) $1 */",
            &[self.queue_id.into(), tracks.to_vec().into()],
        );
    }
}
