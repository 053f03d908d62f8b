//! A queue of whole albums' tracks (shuffle_queue_album): its spread queue plays album numbers,
//! and each album's tracks are read from here by their full key, in place order.

use std::collections::HashMap;

use super::*;

impl QueueStore<'_, '_> {
    /// Refuses a change that does not apply to a queue of whole albums (0A000).
    pub(super) fn refuse_albums(&self) -> ! {
        raise(Error::new(
            ErrorKind::NotSupported,
            format!(
                "shuffle queue {} plays whole albums: only shuffle_queue_next, _prev, _current, \
                 _now, _upcoming, _up_next, _save and _drop apply to it",
                self.queue_id
            ),
        ))
    }

    /// Inserts a new queue of albums' tracks: `tracks[i]` is at `places[i]` of `albums[i]`, and
    /// the queue's row gets its place in the album (0, before the first Next).
    pub fn insert_albums(&mut self, albums: Vec<i64>, places: Vec<i32>, tracks: Vec<i64>) {
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_album (queue_id, album, place, track) \
             SELECT $1, a.album, a.place, a.track \
               FROM ROWS FROM (pg_catalog.unnest($2::bigint[]), pg_catalog.unnest($3::integer[]), \
                               pg_catalog.unnest($4::bigint[])) AS a(album, place, track)",
            &[
                self.queue_id.into(),
                albums.into(),
                places.into(),
                tracks.into(),
            ],
        );
        self.run_ids(
            "UPDATE @extschema@.shuffle_queue SET album_place = 0 \
              WHERE queue_id OPERATOR(pg_catalog.=) $1",
            &[],
        );
    }

    /// The track at `place` of `album`, if the album has that many tracks.
    pub fn album_track(&mut self, album: i64, place: i32) -> Option<i64> {
        let table = self.run(
            "SELECT track FROM @extschema@.shuffle_queue_album \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND album OPERATOR(pg_catalog.=) $2 \
                AND place OPERATOR(pg_catalog.=) $3",
            &[self.queue_id.into(), album.into(), place.into()],
        );
        first_value(table)
    }

    /// Every album's tracks, album k + 1's at index k, for a saved state.
    pub fn all_albums(&mut self) -> Vec<Vec<i64>> {
        let table = self.run_ids(
            "SELECT album, pg_catalog.array_agg(track ORDER BY place) AS tracks \
               FROM @extschema@.shuffle_queue_album \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 GROUP BY album ORDER BY album",
            &[],
        );
        let albums: Vec<(i64, Vec<i64>)> = table
            .map(|row| (row.required("album"), row.required("tracks")))
            .collect();
        if let Some((k, _)) = (albums.iter().enumerate()).find(|(k, (a, _))| *a != *k as i64 + 1) {
            self.missing(format!("album {}", k + 1));
        }
        albums.into_iter().map(|(_, tracks)| tracks).collect()
    }

    /// A restored queue of albums' tracks: album k + 1's at index k.
    pub fn insert_saved_albums(&mut self, albums: &[Vec<i64>]) {
        let (mut numbers, mut places, mut tracks) = (Vec::new(), Vec::new(), Vec::new());
        for (k, album) in albums.iter().enumerate() {
            for (place, &track) in album.iter().enumerate() {
                numbers.push(k as i64 + 1);
                places.push(place as i32);
                tracks.push(track);
            }
        }
        self.insert_albums(numbers, places, tracks);
    }

    /// The track at `place` of an album the queue plays, which has it.
    pub fn album_track_at(&mut self, album: i64, place: i32) -> i64 {
        self.album_track(album, place)
            .unwrap_or_else(|| self.missing(format!("track at place {place} of album {album}")))
    }

    /// The last track of an album the queue plays, and its place.
    pub fn album_last(&mut self, album: i64) -> (i32, i64) {
        let table = self.run(
            "SELECT place, track FROM @extschema@.shuffle_queue_album \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND album OPERATOR(pg_catalog.=) $2 \
              ORDER BY place DESC LIMIT 1",
            &[self.queue_id.into(), album.into()],
        );
        if table.is_empty() {
            self.missing(format!("track of album {album}"));
        }
        let row = table.first();
        (row.required("place"), row.required("track"))
    }

    /// The tracks of each of `albums`, in place order.
    pub fn albums_tracks(&mut self, albums: &[i64]) -> HashMap<i64, Vec<i64>> {
        let table = self.run(
            // Each album by its own lookup of (queue_id, album): the one plan, whatever the
            // statistics say of the table (`album = ANY` may be planned as a filter over the
            // whole queue's rows).
            "SELECT a.album, \
                    (SELECT pg_catalog.array_agg(t.track ORDER BY t.place) \
                       FROM @extschema@.shuffle_queue_album t \
                      WHERE t.queue_id OPERATOR(pg_catalog.=) $1 \
                        AND t.album OPERATOR(pg_catalog.=) a.album) AS tracks \
               FROM pg_catalog.unnest($2::bigint[]) AS a (album)",
            &[self.queue_id.into(), albums.to_vec().into()],
        );
        let found: HashMap<i64, Vec<i64>> = table
            .filter_map(|row| Some((row.required("album"), row.value("tracks")?)))
            .collect();
        if let Some(album) = albums.iter().find(|a| !found.contains_key(a)) {
            self.missing(format!("track of album {album}"));
        }
        found
    }
}
