//! What played, read back: a page of a queue's history behind the play position, newest first,
//! with the queue row's counts as the same statement saw them (shuffle_queue_played).

use super::*;

/// The queue row's counts and a page of its history, all of one snapshot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HistoryPage {
    /// Whether the queue is spread by group (its history starts at `front`).
    pub spread: bool,
    pub tracks: i64,
    pub front: i64,
    pub behind: i64,
    /// A spread queue's pass and the tracks left in it (0 for the others).
    pub pass: i64,
    pub pass_left: i64,
    /// The tracks played before the track playing, newest first, from the `offset + 1`-th.
    pub played: Vec<i64>,
}

/// The queue row and, in the same statement, the history rows before the play position: a
/// plain queue's newest pick is the tape's last position, a spread queue's the last of its
/// history; the history is the `history` positions up to it, the play position `behind`
/// before it. Each row is reached by the key (queue_id, position), newest first. Both tables
/// name the queue as `$1`: Citus sends a statement to one shard group only when each table in it
/// is filtered by the distribution column's value.
const HISTORY_PAGE: &str =
    "SELECT q.mode, q.tracks, q.front, q.behind, q.pass, q.pass_left, h.track \
       FROM @extschema@.shuffle_queue q \
       CROSS JOIN LATERAL (SELECT (CASE WHEN q.mode OPERATOR(pg_catalog.=) 'spread' \
                                        THEN q.front OPERATOR(pg_catalog.+) q.history \
                                        ELSE q.front OPERATOR(pg_catalog.+) q.tracks END) \
                                  OPERATOR(pg_catalog.-) 1 AS newest) n \
       LEFT JOIN LATERAL (SELECT t.position, t.track FROM @extschema@.shuffle_queue_track t \
              WHERE t.queue_id OPERATOR(pg_catalog.=) $1 \
                AND t.position OPERATOR(pg_catalog.>) (n.newest OPERATOR(pg_catalog.-) q.history) \
                AND t.position OPERATOR(pg_catalog.<) (n.newest OPERATOR(pg_catalog.-) q.behind) \
              ORDER BY t.position DESC OFFSET $2 LIMIT $3) h ON true \
      WHERE q.queue_id OPERATOR(pg_catalog.=) $1 \
      ORDER BY h.position DESC";

impl QueueStore<'_, '_> {
    /// Up to `limit` tracks played before the track playing, newest first, skipping the
    /// `offset` newest, with the counts of the queue's row they go with.
    pub fn history_page(&mut self, offset: i64, limit: i64) -> HistoryPage {
        let table = self.run_ids(HISTORY_PAGE, &[offset, limit]);
        if table.is_empty() {
            no_such_queue(self.queue_id);
        }
        let mut page = HistoryPage::default();
        for (i, row) in table.enumerate() {
            if i == 0 {
                page.spread = row.required::<String>("mode") == "spread";
                page.tracks = row.required("tracks");
                page.front = row.required("front");
                page.behind = row.required("behind");
                page.pass = row.value("pass").unwrap_or(0);
                page.pass_left = row.value("pass_left").unwrap_or(0);
            }
            if let Some(track) = row.value::<i64>("track") {
                page.played.push(track);
            }
        }
        page
    }
}
