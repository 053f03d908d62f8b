//! A spread queue's units (shuffle_queue_unit) and their tracks by slot
//! (shuffle_queue_member): the statements of [`Groups`], and those that create, save and
//! restore them.

use super::*;
use dealcards_core::playlist::groups::{LeftKey, TargetKey};

/// The statement of a spread queue's step: the swap of two slots of a leaf unit, the one or two
/// units it changed, and the queue's row; then the counts of the rows each changed. `record` adds
/// a CTE after them (its text beginning with a comma) and `count` its column. Every row is
/// reached by its whole key, one row per part (the scalar subqueries read the rows as the
/// statement found them), so that no statistics, however stale, give it another plan.
macro_rules! place_sql {
    ($record:expr, $count:expr) => {
        place_sql!($record, $count, "")
    };
    ($record:expr, $count:expr, $row:expr) => {
        concat!(
            "WITH moved_a AS ( \
                 UPDATE @extschema@.shuffle_queue_member m \
                    SET track = (SELECT o.track FROM @extschema@.shuffle_queue_member o \
                                  WHERE o.queue_id OPERATOR(pg_catalog.=) $1 \
                                    AND o.unit_id OPERATOR(pg_catalog.=) $2 \
                                    AND o.slot OPERATOR(pg_catalog.=) $4) \
                  WHERE m.queue_id OPERATOR(pg_catalog.=) $1 AND m.unit_id OPERATOR(pg_catalog.=) $2 \
                    AND m.slot OPERATOR(pg_catalog.=) $3 \
                 RETURNING m.slot, m.track), \
             moved_b AS ( \
                 UPDATE @extschema@.shuffle_queue_member m \
                    SET track = (SELECT o.track FROM @extschema@.shuffle_queue_member o \
                                  WHERE o.queue_id OPERATOR(pg_catalog.=) $1 \
                                    AND o.unit_id OPERATOR(pg_catalog.=) $2 \
                                    AND o.slot OPERATOR(pg_catalog.=) $3) \
                  WHERE m.queue_id OPERATOR(pg_catalog.=) $1 AND m.unit_id OPERATOR(pg_catalog.=) $2 \
                    AND m.slot OPERATOR(pg_catalog.=) $4 AND $4 OPERATOR(pg_catalog.<>) $3 \
                 RETURNING m.slot, m.track), \
             moved AS (SELECT slot, track FROM moved_a UNION ALL SELECT slot, track FROM moved_b), \
             saved_a AS ( \
                 UPDATE @extschema@.shuffle_queue_unit u \
                    SET size = $6, to_place = $7, placed = $8, pass = $9, shift = $10, target = $11, \
                        last_child = $12, ahead_target = $13, ahead_left = $14 \
                  WHERE u.queue_id OPERATOR(pg_catalog.=) $1 AND u.unit_id OPERATOR(pg_catalog.=) $5 \
                 RETURNING u.unit_id), \
             saved_b AS ( \
                 UPDATE @extschema@.shuffle_queue_unit u \
                    SET size = $16, to_place = $17, placed = $18, pass = $19, shift = $20, \
                        target = $21, last_child = $22, ahead_target = $23, ahead_left = $24 \
                  WHERE u.queue_id OPERATOR(pg_catalog.=) $1 AND u.unit_id OPERATOR(pg_catalog.=) $15 \
                    AND $15 OPERATOR(pg_catalog.<>) $5 \
                 RETURNING u.unit_id), \
             saved AS (SELECT unit_id FROM saved_a UNION ALL SELECT unit_id FROM saved_b), \
             queued AS ( \
                 UPDATE @extschema@.shuffle_queue \
                    SET tracks = $25, front = $26, history = $27, behind = $28, pass = $29, \
                        pass_left = $30, last_group = $31, next_unit = $32, ahead_target = $33, \
                        ahead_left = $34, up_next = $35, draws = $36, plays = $37",
            $row,
            " \
                  WHERE queue_id OPERATOR(pg_catalog.=) $1 \
                 RETURNING queue_id)",
            $record,
            " \
             SELECT (SELECT track FROM moved WHERE slot OPERATOR(pg_catalog.=) $4) AS track, \
                    (SELECT pg_catalog.count(*) FROM moved) AS moved, \
                    (SELECT pg_catalog.count(*) FROM saved) AS saved, \
                    (SELECT pg_catalog.count(*) FROM queued) AS queued",
            $count
        )
    };
}

/// The part of the step's statement that records the new play in the history when it is full
/// (`$38`, the new position, takes the row of `$39`, the oldest), and its count.
macro_rules! record {
    () => {
        ", \
         logged AS ( \
             UPDATE @extschema@.shuffle_queue_track \
                SET position = $38, track = (SELECT track FROM moved WHERE slot OPERATOR(pg_catalog.=) $4) \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $39 \
             RETURNING track)"
    };
}
macro_rules! logged {
    () => {
        ", (SELECT pg_catalog.count(*) FROM logged) AS logged"
    };
}
/// 0.7.0's columns, written with the row: the steps drawn ahead and a queue of albums' place
/// in its album (`$40` and `$41`, after the record's `$38` and `$39`, unused without it).
macro_rules! row_0_7 {
    () => {
        ", ahead_steps = $40, album_place = $41"
    };
}
/// The step's statement on 0.5.0 and 0.6.0's tables, and on 0.7.0's; each with the record.
const PLACE_0_5: &str = place_sql!("", "");
const PLACE_AND_RECORD_0_5: &str = place_sql!(record!(), logged!());
const PLACE: &str = place_sql!("", "", row_0_7!());
const PLACE_AND_RECORD: &str = place_sql!(record!(), logged!(), row_0_7!());

/// Reads one unit from a row of the unit table's statements.
fn unit_of(row: &impl Columns) -> Unit {
    unit_named(row, |name| name.to_string())
}

/// A unit of a spread queue with its name as UTF-8 (None for NULL) and its tracks by slot: what
/// a saved state holds of it.
#[derive(Debug, Clone)]
pub struct NamedUnit {
    pub unit: Unit,
    pub name: Option<String>,
    pub tracks: Vec<i64>,
}

impl<'a, 'conn> QueueStore<'a, 'conn> {
    /// The parameters of the place statement (`place_sql!`): the queue, the leaf and its two
    /// slots, the one or two units it changed (`units`, the same one twice for one), the
    /// queue's row.
    fn place_args(
        &self,
        leaf: i64,
        drawn: u64,
        last: u64,
        units: [&Unit; 2],
        queue: &SpreadQueue,
    ) -> Vec<DatumWithOid<'static>> {
        let mut args: Vec<DatumWithOid> = vec![self.queue_id.into(), leaf.into()];
        args.push((drawn as i64).into());
        args.push((last as i64).into());
        for unit in units {
            let (ahead_target, ahead_left) = encode_lookahead(&unit.children);
            args.extend([
                unit.id.into(),
                (unit.size as i64).into(),
                (unit.left as i64).into(),
                (unit.placed as i64).into(),
                unit.pass.into(),
                (unit.offset as i64).into(),
                unit.target.into(),
                unit.last_child.into(),
                ahead_target.into(),
                ahead_left.into(),
            ]);
        }
        let (ahead_target, ahead_left) = encode_lookahead(&queue.top);
        args.extend([
            (queue.tracks as i64).into(),
            queue.front.into(),
            (queue.history as i64).into(),
            (queue.behind as i64).into(),
            queue.pass.into(),
            (queue.pass_left as i64).into(),
            queue.last_group.into(),
            queue.next_unit.into(),
            ahead_target.into(),
            ahead_left.into(),
            self.up_next_column(),
            self.draws_column(),
            self.plays_column(),
        ]);
        args
    }

    /// A new spread queue's units, one statement: `names` is the array of group (or subgroup)
    /// values each unit's `name_of` (a 1-based index into it) names.
    #[allow(clippy::too_many_arguments)]
    /// A new spread queue's units, one statement. `names` are each unit's name as the stored
    /// bytes of the text it came from (in the database's encoding), None for NULL: one element
    /// each, in the units' order (subscripting the text[] argument by item would walk the array
    /// from its start for every unit: quadratic in the units).
    pub fn insert_units(&mut self, units: &[Unit], names: Vec<Option<Vec<u8>>>) {
        let column = |f: &dyn Fn(&Unit) -> i64| -> Vec<i64> { units.iter().map(f).collect() };
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_unit \
                    (queue_id, unit_id, parent, name, size, to_place, placed, pass, shift, target, last_child) \
             SELECT $1, u.unit_id, u.parent, \
                    pg_catalog.convert_from(u.name, pg_catalog.getdatabaseencoding()), \
                    u.size, u.to_place, 0, u.pass, u.shift, u.target, 0 \
               FROM ROWS FROM (pg_catalog.unnest($2::bigint[]), pg_catalog.unnest($3::bigint[]), \
                               pg_catalog.unnest($4::bigint[]), pg_catalog.unnest($5::bigint[]), \
                               pg_catalog.unnest($6::bigint[]), pg_catalog.unnest($7::bigint[]), \
                               pg_catalog.unnest($8::bigint[]), pg_catalog.unnest($9::bytea[])) \
                    AS u(unit_id, parent, size, to_place, pass, shift, target, name)",
            &[
                self.queue_id.into(),
                column(&|u| u.id).into(),
                column(&|u| u.parent).into(),
                column(&|u| u.size as i64).into(),
                column(&|u| u.left as i64).into(),
                column(&|u| u.pass).into(),
                column(&|u| u.offset as i64).into(),
                column(&|u| u.target).into(),
                names.into(),
            ],
        );
    }

    /// A new spread queue's tracks in their units' slots, one statement.
    pub fn insert_members(&mut self, units: Vec<i64>, slots: Vec<i64>, tracks: Vec<i64>) {
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_member (queue_id, unit_id, slot, track) \
             SELECT $1, m.unit_id, m.slot, m.track \
               FROM ROWS FROM (pg_catalog.unnest($2::bigint[]), pg_catalog.unnest($3::bigint[]), \
                               pg_catalog.unnest($4::bigint[])) AS m(unit_id, slot, track)",
            &[
                self.queue_id.into(),
                units.into(),
                slots.into(),
                tracks.into(),
            ],
        );
    }

    /// The unit of a spread queue named `name` under `parent`, if there is one. A NULL name
    /// names no unit: each track without a group is a group of its own.
    pub fn unit_named(&mut self, parent: i64, name: Option<DatumWithOid>) -> Option<i64> {
        let name = name?;
        let table = self.run(
            "SELECT unit_id FROM @extschema@.shuffle_queue_unit \
              WHERE ARRAY[queue_id, parent] OPERATOR(pg_catalog.=) ARRAY[$1, $2] /*citus: AND queue_id OPERATOR(pg_catalog.=) $1 */ \
                AND name OPERATOR(pg_catalog.=) $3::text",
            &[self.queue_id.into(), parent.into(), name],
        );
        first_value(table)
    }

    /// A spread queue's units, by id, each with its name in UTF-8 and its tracks by slot.
    pub fn saved_units(&mut self) -> Vec<NamedUnit> {
        let table = self.run_ids(
            "SELECT u.unit_id, u.parent, u.size, u.to_place, u.placed, u.pass, u.shift, u.target, \
                    u.last_child, NULL::bigint[] AS ahead_target, NULL::bigint[] AS ahead_left, \
                    pg_catalog.convert_to(u.name, 'UTF8') AS name_utf8, \
                    (SELECT pg_catalog.array_agg(m.track ORDER BY m.slot) \
                       FROM @extschema@.shuffle_queue_member m \
                      WHERE m.queue_id OPERATOR(pg_catalog.=) $1 \
                        AND m.unit_id OPERATOR(pg_catalog.=) u.unit_id) AS tracks \
               FROM @extschema@.shuffle_queue_unit u \
              WHERE u.queue_id OPERATOR(pg_catalog.=) $1 ORDER BY u.unit_id",
            &[],
        );
        table
            .map(|row| {
                let name: Option<Vec<u8>> = row.value("name_utf8");
                NamedUnit {
                    unit: unit_of(&row),
                    name: name.map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
                    tracks: row.value::<Vec<i64>>("tracks").unwrap_or_default(),
                }
            })
            .collect()
    }

    /// A restored spread queue's units, with their names (UTF-8, converted to the database's
    /// encoding).
    pub fn insert_saved_units(&mut self, units: &[NamedUnit]) {
        let column =
            |f: &dyn Fn(&Unit) -> i64| -> Vec<i64> { units.iter().map(|s| f(&s.unit)).collect() };
        let names: Vec<Option<Vec<u8>>> = units
            .iter()
            .map(|s| s.name.as_ref().map(|n| n.as_bytes().to_vec()))
            .collect();
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_unit \
                    (queue_id, unit_id, parent, name, size, to_place, placed, pass, shift, target, last_child) \
             SELECT $1, u.unit_id, u.parent, pg_catalog.convert_from(u.name, 'UTF8'), u.size, \
                    u.to_place, u.placed, u.pass, u.shift, u.target, u.last_child \
               FROM ROWS FROM (pg_catalog.unnest($2::bigint[]), pg_catalog.unnest($3::bigint[]), \
                               pg_catalog.unnest($4::bytea[]), pg_catalog.unnest($5::bigint[]), \
                               pg_catalog.unnest($6::bigint[]), pg_catalog.unnest($7::bigint[]), \
                               pg_catalog.unnest($8::bigint[]), pg_catalog.unnest($9::bigint[]), \
                               pg_catalog.unnest($10::bigint[]), pg_catalog.unnest($11::bigint[])) \
                    AS u(unit_id, parent, name, size, to_place, placed, pass, shift, target, last_child)",
            &[
                self.queue_id.into(),
                column(&|u| u.id).into(),
                column(&|u| u.parent).into(),
                names.into(),
                column(&|u| u.size as i64).into(),
                column(&|u| u.left as i64).into(),
                column(&|u| u.placed as i64).into(),
                column(&|u| u.pass).into(),
                column(&|u| u.offset as i64).into(),
                column(&|u| u.target).into(),
                column(&|u| u.last_child).into(),
            ],
        );
    }
}

impl Groups for QueueStore<'_, '_> {
    fn upcoming(&mut self, parent: i64, after: TargetKey, limit: usize) -> Vec<TargetKey> {
        let table = self.run_ids(
            "SELECT target, unit_id FROM @extschema@.shuffle_queue_unit \
              WHERE ARRAY[queue_id, parent, target, unit_id] OPERATOR(pg_catalog.>) ARRAY[$1, $2, $3, $4] \
                AND ARRAY[queue_id, parent, target, unit_id] \
                    OPERATOR(pg_catalog.<) ARRAY[$1, $2 OPERATOR(pg_catalog.+) 1] \
                AND size OPERATOR(pg_catalog.>) 0 /*citus: AND queue_id OPERATOR(pg_catalog.=) $1 */ \
              ORDER BY ARRAY[queue_id, parent, target, unit_id] LIMIT 16",
            &[parent, after.0, after.1],
        );
        // A constant limit (the most a lookahead asks for) keeps one plan for every call.
        let mut keys: Vec<TargetKey> = table
            .map(|row| (row.required("target"), row.required("unit_id")))
            .collect();
        keys.truncate(limit);
        keys
    }

    fn biggest(&mut self, parent: i64, pass: i64, before: LeftKey, limit: usize) -> Vec<LeftKey> {
        let table = self.run_ids(
            "SELECT to_place, unit_id FROM @extschema@.shuffle_queue_unit \
              WHERE ARRAY[queue_id, parent, pass, to_place, unit_id] \
                    OPERATOR(pg_catalog.<) ARRAY[$1, $2, $3, $4, $5] \
                AND ARRAY[queue_id, parent, pass, to_place, unit_id] \
                    OPERATOR(pg_catalog.>) ARRAY[$1, $2, $3] \
                AND to_place OPERATOR(pg_catalog.>) 0 /*citus: AND queue_id OPERATOR(pg_catalog.=) $1 */ \
              ORDER BY ARRAY[queue_id, parent, pass, to_place, unit_id] DESC LIMIT 16",
            &[parent, pass, before.0, before.1],
        );
        let mut keys: Vec<LeftKey> = table
            .map(|row| (row.required("to_place"), row.required("unit_id")))
            .collect();
        keys.truncate(limit);
        keys
    }

    fn units(&mut self, ids: &[i64]) -> Vec<Unit> {
        if let Some((asked, read)) = &self.prefetched {
            if ids.iter().all(|id| asked.contains(id)) {
                let mut units: Vec<Unit> = Vec::new();
                for unit in read.iter().filter(|u| ids.contains(&u.id)) {
                    if !units.iter().any(|u| u.id == unit.id) {
                        units.push(unit.clone());
                    }
                }
                return units;
            }
        }
        // Four ids, always (the core asks for four), so that the statement keeps one plan.
        let ids: Vec<i64> = (0..4).map(|i| ids[i.min(ids.len() - 1)]).collect();
        // Each unit by its whole key (OFFSET 0 keeps the lookup a lookup of one row).
        let table = self.run_ids(
            "SELECT u.* \
               FROM (SELECT DISTINCT x.id \
                       FROM (VALUES ($2::pg_catalog.int8), ($3::pg_catalog.int8), \
                                    ($4::pg_catalog.int8), ($5::pg_catalog.int8)) AS x (id)) x, \
                    LATERAL (SELECT unit_id, parent, size, to_place, placed, pass, shift, target, \
                                    last_child, ahead_target, ahead_left \
                               FROM @extschema@.shuffle_queue_unit \
                              WHERE queue_id OPERATOR(pg_catalog.=) $1 \
                                AND unit_id OPERATOR(pg_catalog.=) x.id OFFSET 0) u",
            &[ids[0], ids[1], ids[2], ids[3]],
        );
        table.map(|row| unit_of(&row)).collect()
    }

    fn unit(&mut self, id: i64) -> Unit {
        let table = self.run_ids(
            "SELECT unit_id, parent, size, to_place, placed, pass, shift, target, last_child, \
                    ahead_target, ahead_left \
               FROM @extschema@.shuffle_queue_unit \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND unit_id OPERATOR(pg_catalog.=) $2",
            &[id],
        );
        if table.is_empty() {
            self.missing(format!("group {id}"));
        }
        unit_of(&table.first())
    }

    fn save(&mut self, unit: &Unit) {
        let (ahead_target, ahead_left) = encode_lookahead(&unit.children);
        self.run(
            "UPDATE @extschema@.shuffle_queue_unit \
                SET size = $3, to_place = $4, placed = $5, pass = $6, shift = $7, target = $8, \
                    last_child = $9, ahead_target = $10, ahead_left = $11 \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND unit_id OPERATOR(pg_catalog.=) $2",
            &[
                self.queue_id.into(),
                unit.id.into(),
                (unit.size as i64).into(),
                (unit.left as i64).into(),
                (unit.placed as i64).into(),
                unit.pass.into(),
                (unit.offset as i64).into(),
                unit.target.into(),
                unit.last_child.into(),
                ahead_target.into(),
                ahead_left.into(),
            ],
        );
    }

    fn create(&mut self, unit: &Unit) {
        let name = if self.names.is_empty() {
            None
        } else {
            self.names.remove(0)
        };
        let name = name.unwrap_or_else(DatumWithOid::null::<String>);
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_unit \
                    (queue_id, unit_id, parent, name, size, to_place, placed, pass, shift, target, last_child) \
             VALUES ($1, $2, $3, $4::text, $5, $6, $7, $8, $9, $10, $11)",
            &[
                self.queue_id.into(),
                unit.id.into(),
                unit.parent.into(),
                name,
                (unit.size as i64).into(),
                (unit.left as i64).into(),
                (unit.placed as i64).into(),
                unit.pass.into(),
                (unit.offset as i64).into(),
                unit.target.into(),
                unit.last_child.into(),
            ],
        );
    }

    fn place(
        &mut self,
        leaf: i64,
        drawn: u64,
        last: u64,
        units: &[&Unit],
        position: i64,
        forget: Option<i64>,
        queue: &SpreadQueue,
    ) -> i64 {
        // One statement for the swap, the units, the queue's row and (when the history is full)
        // the history: a step of a long-played queue writes its rows at once. The units are
        // one or two, passed as two (the same one twice for one), so that the statement keeps
        // one plan for every call.
        let (a, b) = (units[0], units[units.len() - 1]);
        let mut args = self.place_args(leaf, drawn, last, [a, b], queue);
        let current = self.layout == Layout::Current;
        let sql = match (forget, current) {
            (Some(_), false) => PLACE_AND_RECORD_0_5,
            (None, false) => PLACE_0_5,
            (Some(_), true) => PLACE_AND_RECORD,
            (None, true) => PLACE,
        };
        if forget.is_some() || current {
            args.push(position.into());
            args.push(forget.unwrap_or(0).into());
        }
        if current {
            args.push(self.ahead_steps_column());
            args.push(self.extra.album_place.into());
        }
        let table = self.run(sql, &args);
        let row = table.first();
        let track: Option<i64> = row.value("track");
        let moved: i64 = row.required("moved");
        let saved: i64 = row.required("saved");
        let queued: i64 = row.required("queued");
        let logged: i64 = if forget.is_some() {
            row.required("logged")
        } else {
            1
        };
        let expected_moves = if drawn == last { 1 } else { 2 };
        let distinct = if a.id == b.id { 1 } else { 2 };
        let Some(track) =
            track.filter(|_| moved == expected_moves && saved == distinct && queued == 1)
        else {
            self.missing(format!("track in slot {drawn} or {last} of group {leaf}"))
        };
        if logged != 1 {
            self.missing_position(forget.unwrap_or(position));
        }
        if forget.is_none() {
            self.record(position, track, None);
        }
        self.row_written = true;
        track
    }

    fn swap(&mut self, unit: i64, a: u64, b: u64) -> i64 {
        let (a, b) = (a as i64, b as i64);
        if a == b {
            let table = self.run_ids(
                "SELECT track FROM @extschema@.shuffle_queue_member \
                  WHERE queue_id OPERATOR(pg_catalog.=) $1 AND unit_id OPERATOR(pg_catalog.=) $2 \
                    AND slot OPERATOR(pg_catalog.=) $3",
                &[unit, b],
            );
            return first_value(table)
                .unwrap_or_else(|| self.missing(format!("track in slot {b} of group {unit}")));
        }
        // Slot a takes b's track, then slot b takes a's former one: each row by its whole key.
        let taken = self.run_ids(
            "UPDATE @extschema@.shuffle_queue_member m SET track = f.track \
               FROM @extschema@.shuffle_queue_member f, @extschema@.shuffle_queue_member old \
              WHERE m.queue_id OPERATOR(pg_catalog.=) $1 AND m.unit_id OPERATOR(pg_catalog.=) $2 \
                AND m.slot OPERATOR(pg_catalog.=) $3 \
                AND f.queue_id OPERATOR(pg_catalog.=) $1 AND f.unit_id OPERATOR(pg_catalog.=) $2 \
                AND f.slot OPERATOR(pg_catalog.=) $4 \
                AND old.queue_id OPERATOR(pg_catalog.=) $1 AND old.unit_id OPERATOR(pg_catalog.=) $2 \
                AND old.slot OPERATOR(pg_catalog.=) $3 \
             RETURNING old.track",
            &[unit, a, b],
        );
        let Some(former) = first_value::<i64>(taken) else {
            self.missing(format!("track in slot {a} or {b} of group {unit}"))
        };
        let set = self.run_ids(
            "UPDATE @extschema@.shuffle_queue_member SET track = $4 \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND unit_id OPERATOR(pg_catalog.=) $2 \
                AND slot OPERATOR(pg_catalog.=) $3 \
             RETURNING track",
            &[unit, b, former],
        );
        first_value(set)
            .unwrap_or_else(|| self.missing(format!("track in slot {a} or {b} of group {unit}")))
    }

    fn find(&mut self, track: i64) -> Option<(i64, u64)> {
        let table = self.run_ids(
            "SELECT unit_id, slot FROM @extschema@.shuffle_queue_member \
              WHERE ARRAY[queue_id, track] OPERATOR(pg_catalog.=) ARRAY[$1, $2] /*citus: AND queue_id OPERATOR(pg_catalog.=) $1 */",
            &[track],
        );
        if table.is_empty() {
            return None;
        }
        let row = table.first();
        let unit: i64 = row.required("unit_id");
        let slot = stored_u64(row.required::<i64>("slot"), || {
            format!(
                "the slot of track {track} of shuffle queue {}",
                self.queue_id
            )
        });
        Some((unit, slot))
    }

    fn push(&mut self, unit: i64, slot: u64, track: i64) {
        self.run_ids(
            "INSERT INTO @extschema@.shuffle_queue_member (queue_id, unit_id, slot, track) \
             VALUES ($1, $2, $3, $4)",
            &[unit, slot as i64, track],
        );
    }

    fn pop(&mut self, unit: i64, slot: u64) {
        let gone = self.run_ids(
            "DELETE FROM @extschema@.shuffle_queue_member \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND unit_id OPERATOR(pg_catalog.=) $2 \
                AND slot OPERATOR(pg_catalog.=) $3 RETURNING track",
            &[unit, slot as i64],
        );
        if gone.is_empty() {
            self.missing(format!("track in slot {slot} of group {unit}"));
        }
    }

    fn played(&mut self, position: i64) -> i64 {
        Tape::track_at(self, position)
    }

    fn record(&mut self, position: i64, track: i64, forget: Option<i64>) {
        match forget {
            // The oldest play's row becomes the newest: one row per position kept, as on a tape.
            Some(oldest) => {
                let moved = self.run_ids(
                    "UPDATE @extschema@.shuffle_queue_track SET position = $2, track = $3 \
                      WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $4 \
                     RETURNING track",
                    &[position, track, oldest],
                );
                if moved.is_empty() {
                    self.missing_position(oldest);
                }
            }
            None => {
                self.run_ids(
                    "INSERT INTO @extschema@.shuffle_queue_track (queue_id, position, track) \
                     VALUES ($1, $2, $3)",
                    &[position, track],
                );
            }
        }
    }

    fn forget(&mut self, position: i64) {
        self.run_ids(
            "DELETE FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $2",
            &[position],
        );
    }
}
