//! The steps of Next drawn ahead (shuffle_queue_ahead): the first read after the queue's row
//! when its count (`ahead_steps`) says there are any, played and deleted by next, all read and
//! more written by upcoming, all deleted by any other change to the queue. Each change writes
//! the count.

use super::*;
use dealcards_core::playlist::ahead::Ahead;

/// A step drawn ahead as its row holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredStep {
    pub step: i64,
    pub ahead: Ahead,
}

impl StoredStep {
    /// The step of a row read with the columns `{prefix}step`, `{prefix}track`,
    /// `{prefix}up_next` and `{prefix}draws`; none where the step is NULL.
    pub(super) fn of(row: &impl Columns, prefix: &str) -> Option<StoredStep> {
        let step: i64 = row.value(&format!("{prefix}step"))?;
        let draws: Vec<i64> = row.required(&format!("{prefix}draws"));
        Some(StoredStep {
            step,
            ahead: Ahead {
                track: row.required(&format!("{prefix}track")),
                up_next: row.required(&format!("{prefix}up_next")),
                draws: (draws.into_iter())
                    .map(|d| stored_u64(d, || format!("a draw count of step {step} drawn ahead")))
                    .collect(),
            },
        })
    }
}

impl QueueStore<'_, '_> {
    /// The first step drawn ahead, read on its own.
    pub(super) fn first_step_ahead(&mut self) -> Option<StoredStep> {
        let table = self.run_ids(
            "SELECT step, track, up_next, draws FROM @extschema@.shuffle_queue_ahead \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 ORDER BY step LIMIT 1",
            &[],
        );
        if table.is_empty() {
            return None;
        }
        StoredStep::of(&table.first(), "")
    }

    /// Every step drawn ahead, in order.
    pub fn steps_ahead(&mut self) -> Vec<StoredStep> {
        if self.extra.ahead_steps == 0 {
            return Vec::new();
        }
        let table = self.run_ids(
            "SELECT step, track, up_next, draws FROM @extschema@.shuffle_queue_ahead \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 ORDER BY step",
            &[],
        );
        let steps: Vec<StoredStep> = table
            .map(|row| StoredStep::of(&row, "").expect("a step"))
            .collect();
        if steps.len() as i64 != self.extra.ahead_steps {
            self.missing(format!("{} steps drawn ahead", self.extra.ahead_steps));
        }
        steps
    }

    /// The steps drawn ahead at indexes `from .. to` (0: the first), all drawn already.
    pub fn steps_ahead_between(&mut self, from: usize, to: usize) -> Vec<Ahead> {
        let Some(first) = self.first_ahead.as_ref().map(|s| s.step) else {
            return Vec::new();
        };
        let table = self.run_ids(
            "SELECT step, track, up_next, draws FROM @extschema@.shuffle_queue_ahead \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 \
                AND step OPERATOR(pg_catalog.>=) $2 AND step OPERATOR(pg_catalog.<) $3 \
              ORDER BY step",
            &[first + from as i64, first + to as i64],
        );
        let steps: Vec<Ahead> = table
            .map(|row| StoredStep::of(&row, "").expect("a step").ahead)
            .collect();
        if steps.len() != to.saturating_sub(from) {
            self.missing(format!("steps {from} to {to} drawn ahead"));
        }
        steps
    }

    /// Writes the count of steps drawn ahead into the queue's row (NULL for none).
    fn count_ahead(&mut self, steps: i64) {
        self.extra.ahead_steps = steps;
        let column = self.ahead_steps_column();
        self.run(
            "UPDATE @extschema@.shuffle_queue SET ahead_steps = $2 \
              WHERE queue_id OPERATOR(pg_catalog.=) $1",
            &[self.queue_id.into(), column],
        );
    }

    /// Writes steps drawn ahead after those there are, numbered on from `first`.
    pub fn put_ahead(&mut self, first: i64, steps: &[Ahead]) {
        if steps.is_empty() {
            return;
        }
        let tracks: Vec<i64> = steps.iter().map(|s| s.track).collect();
        let up_next: Vec<bool> = steps.iter().map(|s| s.up_next).collect();
        // Every step's draws in one array, each step's its slice [from, to] (unnest cannot give
        // an array per row; an empty slice is an empty array).
        let mut draws: Vec<i64> = Vec::new();
        let (mut from, mut to): (Vec<i32>, Vec<i32>) = (Vec::new(), Vec::new());
        for step in steps {
            from.push(place_of(draws.len() + 1));
            draws.extend(step.draws.iter().map(|&d| {
                i64::try_from(d).expect("a draw is below a count of tracks, far below 2^63")
            }));
            to.push(place_of(draws.len()));
        }
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_ahead (queue_id, step, track, up_next, draws) \
             SELECT $1, $2 OPERATOR(pg_catalog.+) s.i OPERATOR(pg_catalog.-) 1, s.track, \
                    s.up_next, ($5::pg_catalog.int8[])[s.draws_from : s.draws_to] \
               FROM ROWS FROM (pg_catalog.unnest($3::pg_catalog.int8[]), \
                               pg_catalog.unnest($4::pg_catalog.bool[]), \
                               pg_catalog.unnest($6::pg_catalog.int4[]), \
                               pg_catalog.unnest($7::pg_catalog.int4[])) WITH ORDINALITY \
                    AS s (track, up_next, draws_from, draws_to, i)",
            &[
                self.queue_id.into(),
                first.into(),
                tracks.into(),
                up_next.into(),
                draws.into(),
                from.into(),
                to.into(),
            ],
        );
        if self.first_ahead.is_none() {
            self.first_ahead = Some(StoredStep {
                step: first,
                ahead: steps[0].clone(),
            });
        }
        self.count_ahead(self.extra.ahead_steps + steps.len() as i64);
    }

    /// Deletes the step that played. Next took it off the count already: the count is written
    /// with the queue's row.
    pub fn played_ahead(&mut self, step: i64) {
        self.run_ids(
            "DELETE FROM @extschema@.shuffle_queue_ahead \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND step OPERATOR(pg_catalog.=) $2",
            &[step],
        );
        self.first_ahead = None;
    }

    /// A step drawn ahead that does not play its track from its draws, or names a track up next
    /// that is not there: the queue's rows were changed outside the functions.
    pub fn stale_ahead(&self, track: i64) -> ! {
        self.missing(format!("step drawn ahead that plays track {track}"))
    }

    /// Marks a seeded queue as numbering every Next an operation (rule 1): a queue restored
    /// from the state of a queue made before 0.7.0.
    pub fn rule_1(&mut self) {
        self.extra.seed_rule = None;
        self.run_ids(
            "UPDATE @extschema@.shuffle_queue SET seed_rule = NULL \
              WHERE queue_id OPERATOR(pg_catalog.=) $1",
            &[],
        );
    }

    /// Deletes every step drawn ahead: the queue changed.
    pub fn drop_ahead(&mut self) {
        self.first_ahead = None;
        if self.extra.ahead_steps > 0 {
            self.run_ids(
                "DELETE FROM @extschema@.shuffle_queue_ahead \
                  WHERE queue_id OPERATOR(pg_catalog.=) $1",
                &[],
            );
            self.count_ahead(0);
        }
    }
}

/// A place in the array of a look-ahead's draws: a look-ahead keeps at most a million steps of a
/// few draws each.
fn place_of(place: usize) -> i32 {
    i32::try_from(place).expect("a look-ahead's draws number far fewer than 2^31")
}
