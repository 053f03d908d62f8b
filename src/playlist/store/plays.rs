//! A listener's plays (shuffle_queue_play): recorded at each step, read back to hold recent
//! plays back in a new queue, forgotten on request.

use super::*;

impl<'a, 'conn> QueueStore<'a, 'conn> {
    /// How many plays of a listener are kept per queue, and per listener across queues.
    pub const KEPT_PLAYS: i64 = 1000;

    /// Records a play for the queue's listener, in the slot its count gives (a ring of
    /// KEPT_PLAYS slots per queue); the count was taken before the step (see next_of).
    pub fn record_play(&mut self, slot: i64, track: i64) {
        let Some(listener) = self.extra.listener else {
            return;
        };
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_play (queue_id, slot, listener, track, played_at) \
             VALUES ($1, $2, $3, $4, pg_catalog.clock_timestamp()) \
             ON CONFLICT (queue_id, slot) DO UPDATE \
                SET listener = EXCLUDED.listener, track = EXCLUDED.track, played_at = EXCLUDED.played_at",
            &[
                self.queue_id.into(),
                (slot % Self::KEPT_PLAYS).into(),
                listener.into(),
                track.into(),
            ],
        );
    }

    /// Forgets the play recorded last for the queue's listener when it is of `track` (the
    /// track now playing, skipped without counting); the count goes back one, so that the next
    /// play takes its slot.
    pub fn uncount_play(&mut self, track: i64) {
        if self.extra.listener.is_none() || self.extra.plays == 0 {
            return;
        }
        let slot = (self.extra.plays - 1) % Self::KEPT_PLAYS;
        let forgotten = self.run(
            "DELETE FROM @extschema@.shuffle_queue_play \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND slot OPERATOR(pg_catalog.=) $2 \
                AND track OPERATOR(pg_catalog.=) $3 \
             RETURNING slot",
            &[self.queue_id.into(), slot.into(), track.into()],
        );
        if !forgotten.is_empty() {
            self.extra.plays -= 1;
        }
    }

    /// A listener's most recent plays, across all of their queues, most recent first (each
    /// track once), after dropping those beyond the KEPT_PLAYS most recent.
    pub fn recent_plays(
        client: &mut SpiClient,
        schema: &ExtensionSchema,
        listener: i64,
    ) -> Vec<i64> {
        let cutoff = statements::run(
            client,
            schema,
            "SELECT played_at FROM @extschema@.shuffle_queue_play \
              WHERE listener OPERATOR(pg_catalog.=) $1 \
              ORDER BY played_at DESC OFFSET $2 LIMIT 1",
            &[listener.into(), (Self::KEPT_PLAYS - 1).into()],
        );
        if !cutoff.is_empty() {
            let at: pgrx::datum::TimestampWithTimeZone = cutoff.first().required("played_at");
            statements::run(
                client,
                schema,
                "DELETE FROM @extschema@.shuffle_queue_play \
                  WHERE listener OPERATOR(pg_catalog.=) $1 AND played_at OPERATOR(pg_catalog.<) $2",
                &[listener.into(), at.into()],
            );
        }
        let table = statements::run(
            client,
            schema,
            "SELECT track, pg_catalog.max(played_at) AS last FROM @extschema@.shuffle_queue_play \
              WHERE listener OPERATOR(pg_catalog.=) $1 \
              GROUP BY track ORDER BY last DESC, track",
            &[listener.into()],
        );
        table.map(|row| row.required::<i64>("track")).collect()
    }

    /// Forgets every play of a listener; returns how many.
    pub fn forget_listener(client: &mut SpiClient, schema: &ExtensionSchema, listener: i64) -> i64 {
        statements::run(
            client,
            schema,
            "WITH forgotten AS (DELETE FROM @extschema@.shuffle_queue_play \
                                 WHERE listener OPERATOR(pg_catalog.=) $1 RETURNING slot) \
             SELECT pg_catalog.count(*) AS plays FROM forgotten",
            &[listener.into()],
        )
        .first()
        .required::<i64>("plays")
    }
}
