//! The queue's row (shuffle_queue): loaded with the units a spread queue's next step reads
//! first, written back after each change, inserted by create and restore, deleted by drop with
//! every other row of the queue.

use super::*;
use dealcards_core::playlist::Mode;

const LOAD_0_4: &str = "SELECT mode, window_size, tracks, front, history, behind \
                        FROM @extschema@.shuffle_queue WHERE queue_id OPERATOR(pg_catalog.=) $1";
const LOAD_0_4_FOR_UPDATE: &str = "SELECT mode, window_size, tracks, front, history, behind \
                                   FROM @extschema@.shuffle_queue \
                                   WHERE queue_id OPERATOR(pg_catalog.=) $1 FOR UPDATE";
/// The queue's row, and with it (one row each, NULL for none) the units a spread queue's next
/// step reads first: the two earliest and the largest of its lookahead, and the group placed
/// last (the ids [`prefetch_ids`] names). The units are read in the statement's snapshot: when
/// the lock waited for another session's step, the row locked is newer than that snapshot
/// (`units_fresh` is false) and the units read with it are not used.
macro_rules! load_sql {
    ($columns:literal, $lock:literal) => {
        concat!(
            "SELECT q.mode, q.window_size, q.tracks, q.front, q.history, q.behind, q.levels, \
                    q.pass, q.pass_left, q.last_group, q.next_unit, q.ahead_target, q.ahead_left, \
                    q.up_next, q.seed, q.draws, q.weight_max, q.listener, q.plays",
            $columns,
            ", \
                    u.unit_id AS unit_unit_id, u.parent AS unit_parent, u.size AS unit_size, \
                    u.to_place AS unit_to_place, u.placed AS unit_placed, u.pass AS unit_pass, \
                    u.shift AS unit_shift, u.target AS unit_target, \
                    u.last_child AS unit_last_child, u.ahead_target AS unit_ahead_target, \
                    u.ahead_left AS unit_ahead_left, \
                    q.xmin OPERATOR(pg_catalog.=) (SELECT s.xmin FROM @extschema@.shuffle_queue s \
                        WHERE s.queue_id OPERATOR(pg_catalog.=) $1) AS units_fresh \
               FROM @extschema@.shuffle_queue q \
               LEFT JOIN LATERAL ( \
                    SELECT w.* \
                      FROM (SELECT DISTINCT x.id \
                              FROM pg_catalog.unnest(ARRAY[q.ahead_target[4], q.ahead_target[6], \
                                   q.ahead_left[5], q.last_group]) AS x (id)) x, \
                           LATERAL (SELECT * FROM @extschema@.shuffle_queue_unit v \
                                     WHERE v.queue_id OPERATOR(pg_catalog.=) $1 \
                                       AND v.unit_id OPERATOR(pg_catalog.=) x.id OFFSET 0) w) u \
                 ON true \
              WHERE q.queue_id OPERATOR(pg_catalog.=) $1",
            $lock
        )
    };
}
const LOAD_0_5: &str = load_sql!("", "");
const LOAD_0_5_FOR_UPDATE: &str = load_sql!("", " FOR UPDATE OF q");
/// 0.7.0's columns: how many steps are drawn ahead, the seeded queue's rule, the place in the
/// album of a queue of albums.
const LOAD: &str = load_sql!(", q.ahead_steps, q.seed_rule, q.album_place", "");
const LOAD_FOR_UPDATE: &str = load_sql!(
    ", q.ahead_steps, q.seed_rule, q.album_place",
    " FOR UPDATE OF q"
);

/// The units the load statement reads with a spread queue's row: the ids at
/// `ahead_target[4]`, `ahead_target[6]`, `ahead_left[5]` (SQL's subscripts) and `last_group`,
/// as the decoded lookahead has them.
fn prefetch_ids(top: &Lookahead, last_group: i64) -> Vec<i64> {
    let mut ids: Vec<i64> = top.earliest.iter().take(2).map(|k| k.1).collect();
    ids.extend(top.largest.first().map(|k| k.1));
    ids.push(last_group);
    ids
}

/// A spread queue's row as a step leaves it; from 0.7.0 on with the count of steps drawn ahead
/// and a queue of albums' place in its album.
macro_rules! spread_update {
    ($row_0_7:literal) => {
        concat!(
            "UPDATE @extschema@.shuffle_queue \
                SET tracks = $2, front = $3, history = $4, behind = $5, \
                    pass = $6, pass_left = $7, last_group = $8, next_unit = $9, \
                    ahead_target = $10, ahead_left = $11, up_next = $12, draws = $13, \
                    listener = $14, plays = $15",
            $row_0_7,
            " WHERE queue_id OPERATOR(pg_catalog.=) $1"
        )
    };
}
const SPREAD_UPDATE_0_5: &str = spread_update!("");
const SPREAD_UPDATE: &str = spread_update!(", ahead_steps = $16, album_place = $17");
/// A plain queue's row, likewise.
macro_rules! tape_update {
    ($row_0_7:literal) => {
        concat!(
            "UPDATE @extschema@.shuffle_queue \
                SET tracks = $2, front = $3, history = $4, behind = $5, up_next = $6, \
                    draws = $7, weight_max = $8, listener = $9, plays = $10",
            $row_0_7,
            " WHERE queue_id OPERATOR(pg_catalog.=) $1"
        )
    };
}
const TAPE_UPDATE_0_5: &str = tape_update!("");
const TAPE_UPDATE: &str = tape_update!(", ahead_steps = $11");

impl<'a, 'conn> QueueStore<'a, 'conn> {
    /// Reads the queue's row, locking it when the caller will change the queue; raises P0002
    /// for a queue that does not exist.
    pub fn load(&mut self, lock: bool) -> State {
        self.writes = lock;
        let sql = match (self.layout, lock) {
            (Layout::Before0_5, false) => LOAD_0_4,
            (Layout::Before0_5, true) => LOAD_0_4_FOR_UPDATE,
            (Layout::Before0_7, false) => LOAD_0_5,
            (Layout::Before0_7, true) => LOAD_0_5_FOR_UPDATE,
            (Layout::Current, false) => LOAD,
            (Layout::Current, true) => LOAD_FOR_UPDATE,
        };
        let table = self.run_ids(sql, &[]);
        if table.is_empty() {
            no_such_queue(self.queue_id);
        }
        let row = table.first();
        // tracks, front, history and behind are NOT NULL.
        let queue_id = self.queue_id;
        let count = |name: &str| -> u64 {
            stored_u64(row.required::<i64>(name), || {
                format!("the {name} of shuffle queue {queue_id}")
            })
        };
        let mode: String = row.required("mode");
        let tracks = count("tracks");
        let front = row.required("front");
        let history = count("history");
        let behind = count("behind");
        if self.layout >= Layout::Before0_7 {
            self.load_extra(&row);
        }
        if self.layout == Layout::Current {
            self.load_current(&row, &mode, lock);
        }
        if mode == "spread" {
            let levels: i16 = row.required("levels");
            let levels = u8::try_from(levels)
                .ok()
                .filter(|l| (1..=2).contains(l))
                .unwrap_or_else(|| self.changed(format!("{levels} levels")));
            let queue = SpreadQueue {
                levels,
                tracks,
                pass: row.required("pass"),
                pass_left: count("pass_left"),
                last_group: row.required("last_group"),
                next_unit: row.required("next_unit"),
                top: decode_lookahead(row.value("ahead_target"), row.value("ahead_left")),
                front,
                history,
                behind,
            };
            if self.layout >= Layout::Before0_7 && row.value::<bool>("units_fresh") == Some(true) {
                let units = row
                    .rewind()
                    .filter(|row| row.value::<i64>("unit_unit_id").is_some())
                    .map(|row| unit_named(&row, |column| format!("unit_{column}")))
                    .collect();
                self.prefetched = Some((prefetch_ids(&queue.top, queue.last_group), units));
            }
            State::Spread(queue)
        } else {
            let window: Option<i32> = row.value("window_size");
            State::Tape(Queue {
                mode: Mode::parse(&mode).unwrap_or_else(|e| raise(e)),
                window: window.map(|w| {
                    stored_u64(w.into(), || {
                        format!("the window_size of shuffle queue {queue_id}")
                    })
                }),
                tracks,
                front,
                history,
                behind,
            })
        }
    }

    /// What the queue row of 0.5.0 and later holds beyond a plain queue's pointers.
    fn load_extra(&mut self, row: &impl Columns) {
        let queue_id = self.queue_id;
        let seed: Option<Vec<u8>> = row.value("seed");
        self.extra = Extra {
            up_next: row.value::<i32>("up_next").unwrap_or(0) as i64,
            seed: seed.map(|s| {
                s.try_into()
                    .unwrap_or_else(|_| self.missing("seed of 32 bytes".into()))
            }),
            draws: row.value("draws").unwrap_or(0),
            weight_max: (row.value::<i32>("weight_max")).map(|w| {
                stored_u64(w.into(), || {
                    format!("the weight_max of shuffle queue {queue_id}")
                })
            }),
            listener: row.value("listener"),
            plays: row.value("plays").unwrap_or(0),
            ..Extra::default()
        };
    }

    /// What the queue row of 0.7.0 holds beyond 0.5.0's: the seed's rule, the place in the album
    /// of a queue of albums (a spread queue over album numbers: XX001 on another), and the
    /// steps drawn ahead.
    fn load_current(&mut self, row: &impl Columns, mode: &str, lock: bool) {
        self.extra.seed_rule = row.value::<i16>("seed_rule");
        self.extra.album_place = row.value::<i32>("album_place");
        if self.extra.album_place.is_some() && mode != "spread" {
            self.changed(format!("an album_place, but it is a {mode} queue"));
        }
        if self.extra.album_place.is_some() && !self.albums {
            self.refuse_albums();
        }
        self.load_ahead(row.value::<i32>("ahead_steps"), lock);
    }

    /// The count of steps drawn ahead as the queue's row holds it, and when the row is locked
    /// and there are any, the first of them. The locked row is the newest version (a lock that
    /// waited reads the row the other session committed).
    fn load_ahead(&mut self, ahead_steps: Option<i32>, lock: bool) {
        self.extra.ahead_steps = ahead_steps.unwrap_or(0) as i64;
        if lock && self.extra.ahead_steps > 0 {
            // Read once the lock is held, by a statement of its own: its snapshot sees the steps
            // a session this one waited for drew or played, which the load's own snapshot may
            // not.
            let first = self.first_step_ahead();
            if first.is_none() {
                self.missing("step drawn ahead".into());
            }
            self.first_ahead = first;
        }
    }

    /// Writes back the parts of a queue's row a step changes.
    pub fn store(&mut self, state: &State) {
        if !self.keeps_ahead {
            self.drop_ahead();
        }
        if self.row_written {
            return;
        }
        match state {
            State::Tape(queue) if self.layout == Layout::Before0_5 => {
                self.run(
                    "UPDATE @extschema@.shuffle_queue \
                        SET tracks = $2, front = $3, history = $4, behind = $5 \
                      WHERE queue_id OPERATOR(pg_catalog.=) $1",
                    &[
                        self.queue_id.into(),
                        (queue.tracks as i64).into(),
                        queue.front.into(),
                        (queue.history as i64).into(),
                        (queue.behind as i64).into(),
                    ],
                );
            }
            State::Tape(queue) => {
                let mut args = vec![
                    self.queue_id.into(),
                    (queue.tracks as i64).into(),
                    queue.front.into(),
                    (queue.history as i64).into(),
                    (queue.behind as i64).into(),
                    self.up_next_column(),
                    self.draws_column(),
                    self.extra.weight_max.map(|w| w as i32).into(),
                    self.extra.listener.into(),
                    self.plays_column(),
                ];
                let sql = if self.layout == Layout::Current {
                    args.push(self.ahead_steps_column());
                    TAPE_UPDATE
                } else {
                    TAPE_UPDATE_0_5
                };
                self.run(sql, &args);
            }
            State::Spread(queue) => {
                let (ahead_target, ahead_left) = encode_lookahead(&queue.top);
                let mut args = vec![
                    self.queue_id.into(),
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
                    self.extra.listener.into(),
                    self.plays_column(),
                ];
                let sql = if self.layout == Layout::Current {
                    args.push(self.ahead_steps_column());
                    args.push(self.extra.album_place.into());
                    SPREAD_UPDATE
                } else {
                    SPREAD_UPDATE_0_5
                };
                self.run(sql, &args);
            }
        }
    }

    /// The ahead_steps column: NULL for none.
    pub(super) fn ahead_steps_column(&self) -> DatumWithOid<'static> {
        match self.extra.ahead_steps {
            0 => DatumWithOid::null::<i32>(),
            n => (n as i32).into(),
        }
    }

    /// The plays column: NULL for a queue without a listener.
    pub(super) fn plays_column(&self) -> DatumWithOid<'static> {
        match self.extra.listener {
            Some(_) => self.extra.plays.into(),
            None => DatumWithOid::null::<i64>(),
        }
    }

    /// The draws column: NULL for a live queue.
    pub(super) fn draws_column(&self) -> DatumWithOid<'static> {
        match self.extra.seed {
            Some(_) => self.extra.draws.into(),
            None => DatumWithOid::null::<i64>(),
        }
    }

    /// The up_next column: NULL when nothing is up next, as on every queue made before 0.5.0.
    pub(super) fn up_next_column(&self) -> DatumWithOid<'static> {
        match self.extra.up_next {
            0 => DatumWithOid::null::<i32>(),
            n => (n as i32).into(),
        }
    }

    /// Inserts a new queue's row and returns its id (from this node's range on Citus).
    pub fn insert_queue(
        client: &mut SpiClient,
        schema: &ExtensionSchema,
        mode: &str,
        window: Option<i32>,
        state: &State,
        seed: Option<&[u8; 32]>,
    ) -> i64 {
        // On a Citus worker, ids come from the node's own range (crate::citus).
        let id_base = crate::citus::id_base(client, schema);
        let table = match state {
            State::Tape(queue) if Layout::of(schema) == Layout::Before0_5 => statements::run(
                client,
                schema,
                "INSERT INTO @extschema@.shuffle_queue \
                        (queue_id, mode, window_size, tracks, front, history, behind) \
                 VALUES ($7 OPERATOR(pg_catalog.+) pg_catalog.nextval('@extschema@.shuffle_queue_id_seq'::pg_catalog.regclass), \
                         $1, $2, $3, $4, $5, $6) RETURNING queue_id",
                &[
                    mode.into(),
                    window.into(),
                    (queue.tracks as i64).into(),
                    queue.front.into(),
                    (queue.history as i64).into(),
                    (queue.behind as i64).into(),
                    id_base.into(),
                ],
            ),
            State::Tape(queue) => statements::run(
                client,
                schema,
                "INSERT INTO @extschema@.shuffle_queue \
                        (queue_id, mode, window_size, tracks, front, history, behind, seed, draws) \
                 VALUES ($7 OPERATOR(pg_catalog.+) pg_catalog.nextval('@extschema@.shuffle_queue_id_seq'::pg_catalog.regclass), \
                         $1, $2, $3, $4, $5, $6, $8, \
                         CASE WHEN $8 IS NOT NULL THEN 0 END) RETURNING queue_id",
                &[
                    mode.into(),
                    window.into(),
                    (queue.tracks as i64).into(),
                    queue.front.into(),
                    (queue.history as i64).into(),
                    (queue.behind as i64).into(),
                    id_base.into(),
                    seed.map(|s| s.to_vec()).into(),
                ],
            ),
            State::Spread(queue) => statements::run(
                client,
                schema,
                "INSERT INTO @extschema@.shuffle_queue \
                        (queue_id, mode, window_size, tracks, front, history, behind, \
                         levels, pass, pass_left, last_group, next_unit, seed, draws) \
                 VALUES ($1 OPERATOR(pg_catalog.+) pg_catalog.nextval('@extschema@.shuffle_queue_id_seq'::pg_catalog.regclass), \
                         'spread', NULL, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, \
                         CASE WHEN $11 IS NOT NULL THEN 0 END) RETURNING queue_id",
                &[
                    id_base.into(),
                    (queue.tracks as i64).into(),
                    queue.front.into(),
                    (queue.history as i64).into(),
                    (queue.behind as i64).into(),
                    (queue.levels as i16).into(),
                    queue.pass.into(),
                    (queue.pass_left as i64).into(),
                    queue.last_group.into(),
                    queue.next_unit.into(),
                    seed.map(|s| s.to_vec()).into(),
                ],
            ),
        };
        first_value(table).unwrap_or_else(|| error!("no id for the new shuffle queue"))
    }

    /// Drops the queue and every row of it; raises P0002 for a queue that does not exist.
    pub fn drop_queue(&mut self) {
        let dropped = self.run_ids(
            "DELETE FROM @extschema@.shuffle_queue WHERE queue_id OPERATOR(pg_catalog.=) $1",
            &[],
        );
        if dropped.is_empty() {
            no_such_queue(self.queue_id);
        }
        self.run_ids(
            "DELETE FROM @extschema@.shuffle_queue_track WHERE queue_id OPERATOR(pg_catalog.=) $1",
            &[],
        );
        if self.layout >= Layout::Before0_7 {
            self.run_ids(
                "DELETE FROM @extschema@.shuffle_queue_unit WHERE queue_id OPERATOR(pg_catalog.=) $1",
                &[],
            );
            self.run_ids(
                "DELETE FROM @extschema@.shuffle_queue_member WHERE queue_id OPERATOR(pg_catalog.=) $1",
                &[],
            );
            self.run_ids(
                "DELETE FROM @extschema@.shuffle_queue_up_next WHERE queue_id OPERATOR(pg_catalog.=) $1",
                &[],
            );
            self.run_ids(
                "DELETE FROM @extschema@.shuffle_queue_skipped WHERE queue_id OPERATOR(pg_catalog.=) $1",
                &[],
            );
            self.run_ids(
                "DELETE FROM @extschema@.shuffle_queue_weight WHERE queue_id OPERATOR(pg_catalog.=) $1",
                &[],
            );
            if self.layout == Layout::Current {
                self.run_ids(
                    "DELETE FROM @extschema@.shuffle_queue_ahead \
                      WHERE queue_id OPERATOR(pg_catalog.=) $1",
                    &[],
                );
                self.run_ids(
                    "DELETE FROM @extschema@.shuffle_queue_album \
                      WHERE queue_id OPERATOR(pg_catalog.=) $1",
                    &[],
                );
            }
        }
    }
}
