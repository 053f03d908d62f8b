//! A plain queue's tape in memory: what the unit tests and the measurements in tools/ run the
//! queue on (the extension keeps it in a table). It checks every operation against the tape's
//! rules as it goes.

use std::collections::{HashMap, VecDeque};

use super::Tape;

/// The positions in memory: `tracks[i]` is at position `base + i`; a weighted queue's weights
/// by track.
#[derive(Debug, Clone)]
pub struct MemoryTape {
    pub base: i64,
    pub tracks: VecDeque<i64>,
    pub weights: HashMap<i64, u64>,
}

impl MemoryTape {
    pub fn new(tracks: &[i64]) -> Self {
        MemoryTape {
            base: 0,
            tracks: tracks.iter().copied().collect(),
            weights: HashMap::new(),
        }
    }

    pub fn index(&self, position: i64) -> usize {
        let i = position - self.base;
        assert!(
            (0..self.tracks.len() as i64).contains(&i),
            "position {position} is not on the tape"
        );
        i as usize
    }

    pub fn last(&self) -> i64 {
        self.base + self.tracks.len() as i64 - 1
    }

    pub fn contents(&self) -> Vec<i64> {
        self.tracks.iter().copied().collect()
    }
}

impl Tape for MemoryTape {
    fn track_at(&mut self, position: i64) -> i64 {
        self.tracks[self.index(position)]
    }

    fn find(&mut self, track: i64) -> Option<i64> {
        self.tracks
            .iter()
            .position(|&t| t == track)
            .map(|i| self.base + i as i64)
    }

    fn pick(&mut self, front: i64, drawn: i64, end: i64) -> i64 {
        assert_eq!(front, self.base);
        assert_eq!(end, self.last() + 1);
        let d = self.index(drawn);
        self.tracks.swap(0, d);
        let track = self.tracks.pop_front().unwrap();
        self.base += 1;
        self.tracks.push_back(track);
        track
    }

    fn insert_front(&mut self, new_front: i64, target: i64, track: i64) {
        assert_eq!(new_front, self.base - 1);
        self.tracks.push_front(track);
        self.base -= 1;
        let t = self.index(target);
        self.tracks.swap(0, t);
    }

    fn fill_from_front(&mut self, front: i64, hole: i64) {
        assert_eq!(front, self.base);
        let h = self.index(hole);
        self.tracks.swap(0, h);
        self.tracks.pop_front();
        self.base += 1;
    }

    fn close_down(&mut self, hole: i64, last: i64) {
        assert_eq!(last, self.last());
        let h = self.index(hole);
        self.tracks.remove(h);
    }

    fn weights(&mut self, positions: &[i64]) -> Vec<u64> {
        positions
            .iter()
            .map(|&p| self.weights[&self.tracks[self.index(p)]])
            .collect()
    }

    fn swap(&mut self, a: i64, b: i64) {
        let (a, b) = (self.index(a), self.index(b));
        self.tracks.swap(a, b);
    }

    fn close_up(&mut self, front: i64, start: i64, hole: i64) {
        assert_eq!(front, self.base);
        let (s, h) = (self.index(start), self.index(hole));
        assert!(s <= h);
        for i in (s..h).rev() {
            self.tracks[i + 1] = self.tracks[i];
        }
        self.fill_from_front(front, start);
    }
}
