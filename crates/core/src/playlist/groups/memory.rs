//! A spread queue's units, tracks and history in memory: what the unit tests and the
//! measurements in tools/ run the queue on (the extension keeps them in tables).

use std::collections::{BTreeMap, HashMap};

use super::{Groups, LeftKey, TargetKey, Unit};

/// The units, slots and history in memory. Finding a track scans the slots: fine for tests and
/// measurements.
#[derive(Debug, Clone, Default)]
pub struct MemoryGroups {
    pub units: BTreeMap<i64, Unit>,
    pub slots: HashMap<i64, Vec<i64>>,
    pub log: BTreeMap<i64, i64>,
    /// How many calls of the trait it served (what a step costs in statements, in SQL).
    pub calls: usize,
}

impl Groups for MemoryGroups {
    fn upcoming(&mut self, parent: i64, after: TargetKey, limit: usize) -> Vec<TargetKey> {
        self.calls += 1;
        let mut keys: Vec<TargetKey> = self
            .units
            .values()
            .filter(|u| u.parent == parent && u.size > 0)
            .map(|u| (u.target, u.id))
            .filter(|&k| k > after)
            .collect();
        keys.sort();
        keys.truncate(limit);
        keys
    }

    fn biggest(&mut self, parent: i64, pass: i64, before: LeftKey, limit: usize) -> Vec<LeftKey> {
        self.calls += 1;
        let mut keys: Vec<LeftKey> = self
            .units
            .values()
            .filter(|u| u.parent == parent && u.size > 0 && u.pass == pass && u.left > 0)
            .map(|u| (u.left as i64, u.id))
            .filter(|&k| k < before)
            .collect();
        keys.sort_by(|a, b| b.cmp(a));
        keys.truncate(limit);
        keys
    }

    fn units(&mut self, ids: &[i64]) -> Vec<Unit> {
        self.calls += 1;
        ids.iter()
            .filter_map(|id| self.units.get(id).cloned())
            .collect()
    }

    fn unit(&mut self, id: i64) -> Unit {
        self.calls += 1;
        self.units[&id].clone()
    }

    fn save(&mut self, unit: &Unit) {
        self.calls += 1;
        assert!(self.units.contains_key(&unit.id));
        self.units.insert(unit.id, unit.clone());
    }

    fn create(&mut self, unit: &Unit) {
        self.calls += 1;
        assert!(self.units.insert(unit.id, unit.clone()).is_none());
    }

    fn swap(&mut self, unit: i64, a: u64, b: u64) -> i64 {
        self.calls += 1;
        let slots = self.slots.get_mut(&unit).unwrap();
        slots.swap(a as usize, b as usize);
        slots[b as usize]
    }

    fn find(&mut self, track: i64) -> Option<(i64, u64)> {
        self.calls += 1;
        self.slots.iter().find_map(|(&unit, slots)| {
            slots
                .iter()
                .position(|&t| t == track)
                .map(|s| (unit, s as u64))
        })
    }

    fn push(&mut self, unit: i64, slot: u64, track: i64) {
        self.calls += 1;
        let slots = self.slots.entry(unit).or_default();
        assert_eq!(slots.len() as u64, slot);
        slots.push(track);
    }

    fn pop(&mut self, unit: i64, slot: u64) {
        self.calls += 1;
        let slots = self.slots.get_mut(&unit).unwrap();
        assert_eq!(slots.len() as u64, slot + 1);
        slots.pop();
    }

    fn played(&mut self, position: i64) -> i64 {
        self.calls += 1;
        self.log[&position]
    }

    fn record(&mut self, position: i64, track: i64, forget: Option<i64>) {
        self.calls += 1;
        if let Some(f) = forget {
            assert_eq!(self.log.remove(&f).map(|_| ()), Some(()));
        }
        assert!(self.log.insert(position, track).is_none());
    }

    fn forget(&mut self, position: i64) {
        self.calls += 1;
        self.log.remove(&position).unwrap();
    }
}

impl MemoryGroups {
    /// The store of a new queue: its units, and each last-level unit's tracks by slot.
    pub fn of(units: &[Unit], slots: impl Fn(usize) -> Vec<i64>) -> MemoryGroups {
        let mut memory = MemoryGroups::default();
        for (k, unit) in units.iter().enumerate() {
            memory.units.insert(unit.id, unit.clone());
            let tracks = slots(k);
            if !tracks.is_empty() {
                memory.slots.insert(unit.id, tracks);
            }
        }
        memory
    }
}
