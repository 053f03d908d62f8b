//! Unit tests of `rows`: exactness by chi-square against the exact distributions, with negative
//! controls (broken samplers the same tests must reject), merges, the seeded forms' golden
//! values from the independent reference (tests/reference/seeded_rows.py), and errors.

use super::*;
use crate::error::ErrorKind;
use crate::scratch::set_working_memory_limit;
use dealcards_fairness::stats::{self, ChiSquare};
use dealcards_fairness::OrderFrequency;

const ALPHA: f64 = 1e-4;

fn stream(seed: u8) -> Stream {
    Stream::from_seed([seed; 32])
}

fn value(i: u32) -> Value {
    Value::new(&i.to_le_bytes())
}

fn index(v: &Value) -> u32 {
    u32::from_le_bytes(v.bytes().try_into().unwrap())
}

/// A sampler of k of the rows 0..n, given in this order; the result as row numbers.
type Sampler = fn(n: u32, k: usize, stream: &mut Stream) -> Vec<u32>;

fn serial(n: u32, k: usize, s: &mut Stream) -> Vec<u32> {
    let mut sample = Sample::new(k, 4).unwrap();
    for i in 0..n {
        sample.offer(value(i), s);
    }
    sample.finish().iter().map(index).collect()
}

/// Rows split at two random points into three pieces (some possibly empty), each sampled on its
/// own, one passed through its serialized form, then merged in a random order: what parallel
/// workers and the leader do.
fn merged(n: u32, k: usize, s: &mut Stream) -> Vec<u32> {
    let mut cuts = [s.below(n + 1), s.below(n + 1)];
    cuts.sort();
    let bounds = [0, cuts[0], cuts[1], n];
    let mut pieces: Vec<Sample<Value>> = (0..3)
        .map(|p| {
            let mut sample = Sample::new(k, 4).unwrap();
            for i in bounds[p]..bounds[p + 1] {
                sample.offer(value(i), s);
            }
            sample
        })
        .collect();
    let mut bytes = Vec::new();
    pieces[1].serialize(&mut bytes);
    pieces[1] = Sample::deserialize(&bytes).unwrap();
    let first = s.below(3) as usize;
    let mut total = pieces.remove(first);
    for piece in pieces {
        total.merge(piece, s).unwrap();
    }
    total.finish().iter().map(index).collect()
}

/// A negative control: a merge that takes half of k from each side's sample.
fn merged_by_halves(n: u32, k: usize, s: &mut Stream) -> Vec<u32> {
    let cut = s.below(n + 1);
    let left = serial(cut, k, s);
    let right: Vec<u32> = serial(n - cut, k, s).iter().map(|i| i + cut).collect();
    let mut from_left = k.div_ceil(2).min(left.len());
    if k - from_left > right.len() {
        from_left = (k - right.len()).min(left.len());
    }
    let mut out: Vec<u32> = left[..from_left].to_vec();
    out.extend(right.iter().take(k - from_left));
    // Still returned in a random order.
    fisher_yates(&mut out, s, &mut || {});
    out
}

/// A negative control: a reservoir (Algorithm R) that, once full, replaces with probability
/// 1 / i instead of k / i.
fn replaces_one_in_i(n: u32, k: usize, s: &mut Stream) -> Vec<u32> {
    let mut kept = Vec::new();
    for i in 0..n {
        if kept.len() < k {
            kept.push(i);
        } else if s.below(i + 1) == 0 {
            let slot = s.below(k as u32) as usize;
            kept[slot] = i;
        }
    }
    fisher_yates(&mut kept, s, &mut || {});
    kept
}

/// The rank of an ordered k-tuple of distinct rows of 0..n among all n!/(n-k)! of them.
fn tuple_index(tuple: &[u32], n: u32) -> usize {
    let mut remaining: Vec<u32> = (0..n).collect();
    let mut index = 0;
    for (t, &row) in tuple.iter().enumerate() {
        let at = remaining.iter().position(|&r| r == row).unwrap();
        remaining.remove(at);
        index = index * (n as usize - t) + at;
    }
    index
}

fn permutations(n: usize, k: usize) -> usize {
    (n - k + 1..=n).product()
}

/// Every ordered k-tuple of distinct rows equally likely: inclusion (k/n), pairs
/// (k(k-1)/(n(n-1))) and position within the result all follow from this.
fn ordered_tuples(sampler: Sampler, n: u32, k: usize, trials: usize, seed: u8) -> ChiSquare {
    let mut s = stream(seed);
    let mut counts = vec![0u64; permutations(n as usize, k)];
    for _ in 0..trials {
        let tuple = sampler(n, k, &mut s);
        assert_eq!(tuple.len(), k);
        counts[tuple_index(&tuple, n)] += 1;
    }
    stats::chi_square_uniform(&counts)
}

/// Each row's inclusion, k in n, as a rows x {in, out} matrix (every trial puts k rows in).
fn inclusion(sampler: Sampler, n: u32, k: usize, trials: usize, seed: u8) -> ChiSquare {
    let mut s = stream(seed);
    let mut counts = vec![vec![0u64; 2]; n as usize];
    for _ in 0..trials {
        let sample = sampler(n, k, &mut s);
        let mut included = vec![false; n as usize];
        for &row in &sample {
            assert!(!included[row as usize], "a row twice in {sample:?}");
            included[row as usize] = true;
        }
        for (row, &inside) in included.iter().enumerate() {
            counts[row][usize::from(!inside)] += 1;
        }
    }
    stats::chi_square_matrix(&counts, &[k as f64, n as f64 - k as f64])
}

/// Pairs of rows: each of the n(n-1)/2 pairs inside an unordered sample equally often. With
/// k = 2 a sample is one pair, so the counts are multinomial.
fn pairs(sampler: Sampler, n: u32, trials: usize, seed: u8) -> ChiSquare {
    let mut s = stream(seed);
    let mut counts = vec![0u64; (n * (n - 1) / 2) as usize];
    for _ in 0..trials {
        let mut pair = sampler(n, 2, &mut s);
        pair.sort();
        let (a, b) = (pair[0], pair[1]);
        counts[(b * (b - 1) / 2 + a) as usize] += 1;
    }
    stats::chi_square_uniform(&counts)
}

/// Row by position in the result: rows x k positions, each row at each position k / n... of the
/// time it is drawn; as a matrix over the rows with a column for "not drawn".
fn positions(sampler: Sampler, n: u32, k: usize, trials: usize, seed: u8) -> ChiSquare {
    let mut s = stream(seed);
    let mut counts = vec![vec![0u64; k + 1]; n as usize];
    for _ in 0..trials {
        let sample = sampler(n, k, &mut s);
        let mut at = vec![k; n as usize];
        for (p, &row) in sample.iter().enumerate() {
            at[row as usize] = p;
        }
        for (row, &p) in at.iter().enumerate() {
            counts[row][p] += 1;
        }
    }
    let mut weights = vec![1.0; k + 1];
    weights[k] = n as f64 - k as f64;
    stats::chi_square_matrix(&counts, &weights)
}

fn passes(result: ChiSquare) -> bool {
    result.p_value >= ALPHA
}

#[test]
fn uniform_samples_are_exact_serial_and_merged() {
    for (name, sampler) in [("serial", serial as Sampler), ("merged", merged)] {
        let tuples = ordered_tuples(sampler, 5, 3, 30_000, 1);
        assert!(
            passes(tuples),
            "{name}: ordered 3-tuples of 5 rows: {tuples:?}"
        );
        let inc = inclusion(sampler, 40, 5, 20_000, 2);
        assert!(passes(inc), "{name}: inclusion 5 of 40: {inc:?}");
        let pair = pairs(sampler, 12, 33_000, 3);
        assert!(passes(pair), "{name}: pairs of 12 rows: {pair:?}");
        let pos = positions(sampler, 10, 4, 20_000, 4);
        assert!(passes(pos), "{name}: position of 4 of 10: {pos:?}");
    }
}

#[test]
fn a_merge_by_halves_is_caught() {
    // Rows of the smaller side are drawn too often: visible in inclusion and in the tuples.
    let inc = inclusion(merged_by_halves, 40, 5, 20_000, 2);
    assert!(!passes(inc), "{inc:?}");
    let tuples = ordered_tuples(merged_by_halves, 5, 3, 30_000, 1);
    assert!(!passes(tuples), "{tuples:?}");
}

#[test]
fn a_reservoir_replacing_with_one_in_i_is_caught() {
    let inc = inclusion(replaces_one_in_i, 40, 5, 20_000, 2);
    assert!(!passes(inc), "{inc:?}");
    let tuples = ordered_tuples(replaces_one_in_i, 5, 3, 30_000, 1);
    assert!(!passes(tuples), "{tuples:?}");
}

#[test]
fn long_inputs_are_sampled_uniformly_by_their_jumps() {
    // 10 of 10,000 rows: nearly every row is passed over by a jump. Inclusion by blocks of
    // 1,000 rows (each trial puts 10 rows in blocks, so blocks are 10 : ... : 10 in expectation).
    for (name, sampler) in [
        ("serial", serial as Sampler),
        ("merged", merged),
        ("1/i", replaces_one_in_i),
    ] {
        let mut s = stream(9);
        let mut blocks = vec![0u64; 10];
        for _ in 0..3_000 {
            for row in sampler(10_000, 10, &mut s) {
                blocks[row as usize / 1000] += 1;
            }
        }
        let result = stats::chi_square_uniform(&blocks);
        assert_eq!(
            passes(result),
            name != "1/i",
            "{name}: {blocks:?} {result:?}"
        );
    }
}

#[test]
fn jumps_pass_over_most_rows_without_keys() {
    // The work of a long input is a counter: with 10 of 1,000,000 rows, about
    // k (1 + ln(n / k)) ~ 125 rows enter.
    let mut sample = Sample::new(10, 4).unwrap();
    let mut s = stream(5);
    let mut entered = 0;
    for i in 0..1_000_000u32 {
        if sample.wants(1.0) {
            entered += 1;
            sample.admit(1.0, value(i), &mut s);
        }
    }
    assert!((50..400).contains(&entered), "{entered} rows entered");
    assert_eq!(sample.rows(), 1_000_000);
    assert_eq!(sample.finish().len(), 10);
}

#[test]
fn fewer_rows_than_k_are_all_returned_in_random_order() {
    let mut s = stream(6);
    let mut first = vec![0u64; 4];
    for _ in 0..8_000 {
        let all = serial(4, 10, &mut s);
        let mut sorted = all.clone();
        sorted.sort();
        assert_eq!(sorted, [0, 1, 2, 3]);
        first[all[0] as usize] += 1;
    }
    assert!(passes(stats::chi_square_uniform(&first)), "{first:?}");
    assert!(serial(0, 3, &mut s).is_empty());
    assert!(serial(5, 0, &mut s).is_empty());
}

// --- Weighted, without replacement.

const WEIGHTS: [f64; 5] = [1.0, 2.0, 3.0, 4.0, 0.0];

type WeightedSampler = fn(weights: &[f64], k: usize, stream: &mut Stream) -> Vec<u32>;

fn weighted_serial(weights: &[f64], k: usize, s: &mut Stream) -> Vec<u32> {
    let mut sample = Sample::new(k, 4).unwrap();
    for (i, &w) in weights.iter().enumerate() {
        sample.offer_weighted(w, value(i as u32), s).unwrap();
    }
    sample.finish().iter().map(index).collect()
}

fn weighted_merged(weights: &[f64], k: usize, s: &mut Stream) -> Vec<u32> {
    let cut = s.below(weights.len() as u32 + 1) as usize;
    let mut parts = [Sample::new(k, 4).unwrap(), Sample::new(k, 4).unwrap()];
    for (i, &w) in weights.iter().enumerate() {
        parts[usize::from(i >= cut)]
            .offer_weighted(w, value(i as u32), s)
            .unwrap();
    }
    let [mut left, right] = parts;
    let mut bytes = Vec::new();
    right.serialize(&mut bytes);
    left.merge(Sample::deserialize(&bytes).unwrap(), s).unwrap();
    left.finish().iter().map(index).collect()
}

/// A negative control: the keys random() * weight, the k largest.
fn weighted_linear_keys(weights: &[f64], k: usize, s: &mut Stream) -> Vec<u32> {
    let mut keyed: Vec<(f64, u32)> = weights
        .iter()
        .enumerate()
        .filter(|(_, &w)| w > 0.0)
        .map(|(i, &w)| (open_unit(s) * w, i as u32))
        .collect();
    keyed.sort_by(|a, b| b.0.total_cmp(&a.0));
    keyed.iter().take(k).map(|&(_, i)| i).collect()
}

/// The exact probability of drawing `tuple` in this order, each draw proportional to weight
/// among the rows not drawn yet.
fn successive_draws(weights: &[f64], tuple: &[u32]) -> f64 {
    let mut left: f64 = weights.iter().sum();
    let mut p = 1.0;
    for &row in tuple {
        p *= weights[row as usize] / left;
        left -= weights[row as usize];
    }
    p
}

fn weighted_tuples(sampler: WeightedSampler, k: usize, trials: usize, seed: u8) -> ChiSquare {
    let n = WEIGHTS.len() as u32;
    let mut s = stream(seed);
    let mut counts = vec![0u64; permutations(n as usize, k)];
    for _ in 0..trials {
        let tuple = sampler(&WEIGHTS, k, &mut s);
        assert_eq!(tuple.len(), k);
        assert!(!tuple.contains(&4), "a row of weight 0 was drawn");
        counts[tuple_index(&tuple, n)] += 1;
    }
    // Enumerate every ordered tuple for its exact probability, and keep the possible ones.
    let mut expected = vec![0.0; counts.len()];
    let mut tuple = vec![0u32; k];
    fn fill(t: usize, tuple: &mut Vec<u32>, n: u32, expected: &mut [f64]) {
        if t == tuple.len() {
            expected[tuple_index(tuple, n)] = successive_draws(&WEIGHTS, tuple);
            return;
        }
        for row in 0..n {
            if !tuple[..t].contains(&row) {
                tuple[t] = row;
                fill(t + 1, tuple, n, expected);
            }
        }
    }
    fill(0, &mut tuple, n, &mut expected);
    let (possible_counts, possible_weights): (Vec<u64>, Vec<f64>) = counts
        .iter()
        .zip(&expected)
        .filter(|(_, &e)| e > 0.0)
        .map(|(&c, &e)| (c, e))
        .unzip();
    stats::chi_square_expected(&possible_counts, &possible_weights)
}

#[test]
fn weighted_samples_follow_successive_draws_exactly() {
    for (name, sampler) in [
        ("serial", weighted_serial as WeightedSampler),
        ("merged", weighted_merged),
    ] {
        for k in [1, 2, 3] {
            let result = weighted_tuples(sampler, k, 40_000, 10 + k as u8);
            assert!(passes(result), "{name}, k = {k}: {result:?}");
        }
    }
}

#[test]
fn weighted_keys_random_times_weight_are_caught() {
    let result = weighted_tuples(weighted_linear_keys, 2, 40_000, 12);
    assert!(!passes(result), "{result:?}");
}

#[test]
fn weighted_long_inputs_draw_in_proportion_to_weight() {
    // 1,000 rows, weight 1 + (i mod 4), one row drawn by jumps: row class c drawn with
    // probability proportional to its total weight.
    let weights: Vec<f64> = (0..1000).map(|i| 1.0 + (i % 4) as f64).collect();
    let mut s = stream(13);
    let mut classes = vec![0u64; 4];
    for _ in 0..20_000 {
        let mut sample = Sample::new(1, 4).unwrap();
        for (i, &w) in weights.iter().enumerate() {
            sample.offer_weighted(w, value(i as u32), &mut s).unwrap();
        }
        classes[index(&sample.finish()[0]) as usize % 4] += 1;
    }
    let result = stats::chi_square_expected(&classes, &[1.0, 2.0, 3.0, 4.0]);
    assert!(passes(result), "{classes:?} {result:?}");
}

#[test]
fn weights_that_are_not_finite_and_positive_are_refused() {
    assert_eq!(usable_weight(2.5), Ok(true));
    assert_eq!(usable_weight(0.0), Ok(false));
    assert_eq!(usable_weight(-0.0), Ok(false));
    for bad in [-1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let err = usable_weight(bad).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidParameter, "{bad}");
    }
    assert_eq!(
        usable_weight(-1.0).unwrap_err().message,
        "weight must be a finite number, 0 or more, got -1"
    );
    let mut sample = Sample::new(2, 4).unwrap();
    let mut s = stream(1);
    assert!(sample.offer_weighted(f64::NAN, value(1), &mut s).is_err());
    sample.offer_weighted(0.0, value(2), &mut s).unwrap();
    assert_eq!(sample.rows(), 0);
    assert!(sample.finish().is_empty());
}

// --- With replacement.

fn resample_serial(weights: &[f64], k: usize, s: &mut Stream) -> Vec<u32> {
    let mut draws = Resample::new(k, 4).unwrap();
    for (i, &w) in weights.iter().enumerate() {
        draws.offer_weighted(w, value(i as u32), s).unwrap();
    }
    draws.finish().iter().map(index).collect()
}

fn resample_merged(weights: &[f64], k: usize, s: &mut Stream) -> Vec<u32> {
    let cut = s.below(weights.len() as u32 + 1) as usize;
    let mut parts = [Resample::new(k, 4).unwrap(), Resample::new(k, 4).unwrap()];
    for (i, &w) in weights.iter().enumerate() {
        parts[usize::from(i >= cut)]
            .offer_weighted(w, value(i as u32), s)
            .unwrap();
    }
    let [left, mut right] = parts;
    let mut bytes = Vec::new();
    left.serialize(&mut bytes);
    right
        .merge(Resample::deserialize(&bytes, s).unwrap(), s)
        .unwrap();
    right.finish().iter().map(index).collect()
}

/// A negative control: a merge that keeps the left side's draws whenever it has any.
fn resample_merged_left_first(weights: &[f64], k: usize, s: &mut Stream) -> Vec<u32> {
    let cut = s.below(weights.len() as u32 + 1) as usize;
    let left = resample_serial(&weights[..cut], k, s);
    if !left.is_empty() {
        return left;
    }
    resample_serial(&weights[cut..], k, s)
        .iter()
        .map(|i| i + cut as u32)
        .collect()
}

fn multinomial(sampler: WeightedSampler, weights: &[f64], k: usize, seed: u8) -> ChiSquare {
    let n = weights.len();
    let mut s = stream(seed);
    let bins = n.pow(k as u32);
    let mut counts = vec![0u64; bins];
    for _ in 0..(bins * 400) {
        let draws = sampler(weights, k, &mut s);
        assert_eq!(draws.len(), k);
        counts[draws.iter().fold(0, |acc, &d| acc * n + d as usize)] += 1;
    }
    let total: f64 = weights.iter().sum();
    let expected: Vec<f64> = (0..bins)
        .map(|mut b| {
            let mut p = 1.0;
            for _ in 0..k {
                p *= weights[b % n] / total;
                b /= n;
            }
            p
        })
        .collect();
    let (c, e): (Vec<u64>, Vec<f64>) = counts
        .iter()
        .zip(&expected)
        .filter(|(_, &e)| e > 0.0)
        .map(|(&c, &e)| (c, e))
        .unzip();
    stats::chi_square_expected(&c, &e)
}

#[test]
fn resamples_are_independent_draws_serial_and_merged() {
    for (name, sampler) in [
        ("serial", resample_serial as WeightedSampler),
        ("merged", resample_merged),
    ] {
        let uniform = multinomial(sampler, &[1.0; 4], 3, 20);
        assert!(passes(uniform), "{name}, 3 of 4 uniform: {uniform:?}");
        let weighted = multinomial(sampler, &[1.0, 0.0, 2.0, 3.0], 2, 21);
        assert!(passes(weighted), "{name}, 2 of 4 weighted: {weighted:?}");
    }
    let broken = multinomial(resample_merged_left_first, &[1.0; 4], 3, 20);
    assert!(!passes(broken), "{broken:?}");
}

#[test]
fn long_resamples_draw_every_row_equally() {
    let mut s = stream(22);
    let mut blocks = vec![0u64; 10];
    for _ in 0..3_000 {
        let ones = vec![1.0; 10_000];
        for row in resample_serial(&ones, 10, &mut s) {
            blocks[row as usize / 1000] += 1;
        }
    }
    let result = stats::chi_square_uniform(&blocks);
    assert!(passes(result), "{blocks:?} {result:?}");
}

// --- Shuffle of every row.

#[test]
fn shuffles_of_all_rows_are_uniform_serial_and_merged() {
    let mut s = stream(30);
    let mut counts = vec![0u64; 24];
    for trial in 0..24_000 {
        let mut left = ShuffleAll::new();
        let mut right = ShuffleAll::new();
        let cut = trial % 5;
        for i in 0..4u32 {
            let side = if (i as usize) < cut {
                &mut left
            } else {
                &mut right
            };
            side.push(value(i), 4).unwrap();
        }
        let mut bytes = Vec::new();
        right.serialize(&mut bytes);
        left.merge(ShuffleAll::deserialize(&bytes).unwrap())
            .unwrap();
        // The order by indexes (what the SQL layer uses) on even trials, the moved rows on odd.
        let order: Vec<u32> = if trial % 2 == 0 {
            let rows = left.rows().to_vec();
            let by_index = left.order(&mut s, &mut || {}).unwrap();
            by_index.iter().map(|&i| index(&rows[i as usize])).collect()
        } else {
            left.finish(&mut s, &mut || {}).iter().map(index).collect()
        };
        counts[tuple_index(&order, 4)] += 1;
    }
    assert!(counts.iter().all(|&c| c > 0));
    let result = stats::chi_square_uniform(&counts);
    assert!(passes(result), "{result:?}");
}

// --- Seeded forms.

#[test]
fn siphash_matches_the_reference_vectors() {
    // The SipHash paper's test vectors: key 00 01 .. 0f, messages 00 01 .. (len - 1).
    let k0 = u64::from_le_bytes([0, 1, 2, 3, 4, 5, 6, 7]);
    let k1 = u64::from_le_bytes([8, 9, 10, 11, 12, 13, 14, 15]);
    let message: Vec<u8> = (0..64).collect();
    assert_eq!(siphash24(k0, k1, &[]), 0x726f_db47_dd0e_0e31);
    assert_eq!(siphash24(k0, k1, &message[..1]), 0x74f8_39c5_93dc_67fd);
    assert_eq!(siphash24(k0, k1, &message[..8]), 0x93f5_f579_9a93_2462);
    assert_eq!(siphash24(k0, k1, &message[..15]), 0xa129_ca61_49be_45e5);
}

fn seeded_sample(seed: [u8; 32], k: usize, values: &[Value]) -> Vec<Value> {
    let mut sample = SeededSample::new(k, 8, RowKey::from_seed(seed)).unwrap();
    for v in values {
        sample.offer(v.clone());
    }
    sample.finish()
}

#[test]
fn seeded_results_depend_only_on_the_seed_and_the_multiset() {
    let seed = [7u8; 32];
    let key = RowKey::from_seed(seed);
    let mut s = stream(31);
    let values: Vec<Value> = (0..200u32).map(|i| value(i % 150)).collect();
    let reference = seeded_sample(seed, 20, &values);
    let mut all = SeededShuffle::new(key);
    for v in &values {
        all.push(v.clone()).unwrap();
    }
    let everything = all.finish(&mut || {});
    assert_eq!(everything.len(), 200);
    assert_eq!(
        everything[..20],
        reference[..],
        "a sample is the shuffle's head"
    );
    for _ in 0..20 {
        let mut shuffled = values.clone();
        fisher_yates(&mut shuffled, &mut s, &mut || {});
        let cut = s.below(201) as usize;
        let mut left = SeededSample::new(20, 8, key).unwrap();
        let mut right = SeededSample::new(20, 8, key).unwrap();
        for v in &shuffled[..cut] {
            left.offer(v.clone());
        }
        for v in &shuffled[cut..] {
            right.offer(v.clone());
        }
        let mut bytes = Vec::new();
        left.serialize(&mut bytes);
        right
            .merge(SeededSample::deserialize(&bytes).unwrap())
            .unwrap();
        assert_eq!(right.finish(), reference);

        let mut a = SeededShuffle::new(key);
        let mut b = SeededShuffle::new(key);
        for (i, v) in shuffled.iter().enumerate() {
            if i < cut { &mut a } else { &mut b }
                .push(v.clone())
                .unwrap();
        }
        let mut bytes = Vec::new();
        b.serialize(&mut bytes);
        a.merge(SeededShuffle::deserialize(&bytes).unwrap())
            .unwrap();
        let by_index: Vec<Value> = a
            .order(&mut || {})
            .unwrap()
            .iter()
            .map(|&i| a.value(i as usize).clone())
            .collect();
        assert_eq!(by_index, everything);
        assert_eq!(a.finish(&mut || {}), everything);
    }
    assert_ne!(seeded_sample([8u8; 32], 20, &values), reference);
}

#[test]
fn seeded_samples_over_seeds_are_uniform() {
    // Over 30,000 seeds, 3 of 5 distinct values in order: 60 tuples, equally likely if the keys
    // behave as random.
    let values: Vec<Value> = (0..5).map(value).collect();
    let mut counts = vec![0u64; 60];
    for trial in 0..30_000u32 {
        let mut seed = [0u8; 32];
        seed[..4].copy_from_slice(&trial.to_le_bytes());
        let tuple: Vec<u32> = seeded_sample(seed, 3, &values).iter().map(index).collect();
        counts[tuple_index(&tuple, 5)] += 1;
    }
    let result = stats::chi_square_uniform(&counts);
    assert!(passes(result), "{result:?}");
}

/// Golden values from tests/reference/seeded_rows.py (an implementation written from the
/// specification in docs/rows.md): the keys of int4 values 1..10 (their 4 little-endian bytes)
/// under the seed 00 01 .. 1f.
#[test]
fn seeded_golden_values_never_change() {
    let seed: [u8; 32] = std::array::from_fn(|i| i as u8);
    let key = RowKey::from_seed(seed);
    let ints = |values: &[Value]| -> Vec<i32> {
        values
            .iter()
            .map(|v| i32::from_le_bytes(v.bytes().try_into().unwrap()))
            .collect()
    };
    let values: Vec<Value> = (1..=10i32).map(|i| Value::new(&i.to_le_bytes())).collect();
    assert_eq!(
        format!("{:016x}", key.of(&1i32.to_le_bytes())),
        GOLDEN_KEY_OF_1
    );
    assert_eq!(
        ints(&seeded_sample(seed, 3, &values)),
        GOLDEN_SAMPLE_3_OF_10
    );
    let mut all = SeededShuffle::new(key);
    for v in &values {
        all.push(v.clone()).unwrap();
    }
    assert_eq!(ints(&all.finish(&mut || {})), GOLDEN_SHUFFLE_OF_10);
    let text: Vec<Value> = ["ace", "king", "queen", "jack"]
        .iter()
        .map(|t| Value::new(t.as_bytes()))
        .collect();
    let sample: Vec<String> = seeded_sample(seed, 2, &text)
        .iter()
        .map(|v| String::from_utf8(v.bytes().to_vec()).unwrap())
        .collect();
    assert_eq!(sample, GOLDEN_TEXT_2_OF_4);
}

const GOLDEN_KEY_OF_1: &str = "82e6c6084be86cd3";
const GOLDEN_SAMPLE_3_OF_10: [i32; 3] = [6, 8, 9];
const GOLDEN_SHUFFLE_OF_10: [i32; 10] = [6, 8, 9, 10, 4, 1, 7, 5, 3, 2];
const GOLDEN_TEXT_2_OF_4: [&str; 2] = ["ace", "queen"];

// --- shuffle_key: the seeded order key.

/// Golden values from `tests/reference/seeded_rows.py shuffle_key 000102...1f int8 ...` and
/// `... text ...`.
#[test]
fn shuffle_key_golden_values_never_change() {
    let key = RowKey::from_seed(std::array::from_fn(|i| i as u8));
    let ints = [1, 0, -1, 42, i64::MIN, i64::MAX].map(|k| key.order_key_of_int(k));
    assert_eq!(
        ints,
        [
            -3812923498326249669,
            -4555117311458665677,
            -1190283601572631342,
            -4246953690035498333,
            8332138877984853952,
            2930414506361641320,
        ]
    );
    let texts = ["ace", "", "Zoë", "42"].map(|t| key.order_key(t.as_bytes()));
    assert_eq!(
        texts,
        [
            -5894646678025663226,
            2701210225541298157,
            2917913240492061191,
            -1281743852566212470,
        ]
    );
    // The flipped top bit: the same number as the row key, read in signed order.
    assert_eq!(
        format!("{:016x}", key.order_key_of_int(1) as u64 ^ (1 << 63)),
        format!("{:016x}", key.of(&1i64.to_le_bytes()))
    );
}

/// Ordering by shuffle_key is the seeded shuffle's order: the signed order of the keys is the
/// unsigned order of the row keys.
#[test]
fn shuffle_key_orders_as_the_seeded_shuffle() {
    let mut s = stream(50);
    for seed in 0..20u8 {
        let key = RowKey::from_seed([seed; 32]);
        let ids: Vec<i64> = (0..300).map(|_| s.next_u64() as i64).collect();
        let mut by_key = ids.clone();
        by_key.sort_by_key(|&id| key.order_key_of_int(id));
        let mut shuffle = SeededShuffle::new(key);
        for id in &ids {
            shuffle.push(Value::new(&id.to_le_bytes())).unwrap();
        }
        let shuffled: Vec<i64> = shuffle
            .finish(&mut || {})
            .iter()
            .map(|v| i64::from_le_bytes(v.bytes().try_into().unwrap()))
            .collect();
        assert_eq!(by_key, shuffled);
        // Both signs among the keys: the order is not only that of the low 63 bits.
        assert!(ids.iter().any(|&id| key.order_key_of_int(id) < 0));
        assert!(ids.iter().any(|&id| key.order_key_of_int(id) > 0));
    }
}

/// The order of the ids 0..4 by a seeded key, over 24,000 seeds: every one of the 24 orders
/// equally likely for a key that behaves as random, the test of the fairness notes.
fn orders_over_seeds(order_key: impl Fn(&[u8; 32], i64) -> i64) -> OrderFrequency {
    let mut orders = OrderFrequency::new(4);
    for trial in 0..24_000u32 {
        let mut seed = [0u8; 32];
        seed[..4].copy_from_slice(&trial.to_le_bytes());
        let mut ids: Vec<usize> = (0..4).collect();
        ids.sort_by_key(|&id| order_key(&seed, id as i64));
        orders.record(&ids);
    }
    orders
}

#[test]
fn shuffle_key_orders_are_uniform_over_seeds() {
    let orders = orders_over_seeds(|seed, id| RowKey::from_seed(*seed).order_key_of_int(id));
    assert_eq!(orders.unseen(), 0);
    let result = orders.test();
    assert!(passes(result), "{result:?}");
}

/// Negative controls: seeded keys that are not a keyed hash of the id (the id mixed with a word
/// of the seed's stream, by XOR or by addition) give only a few orders, and the same test
/// rejects them.
#[test]
fn shuffle_key_test_rejects_keys_that_only_mix_the_seed_in() {
    let word = |seed: &[u8; 32]| Stream::from_seed(*seed).next_u64();
    let xor = orders_over_seeds(|seed, id| (word(seed) ^ id as u64) as i64);
    let added = orders_over_seeds(|seed, id| (word(seed).wrapping_add(id as u64)) as i64);
    for control in [xor, added] {
        assert!(control.unseen() > 0);
        assert!(!passes(control.test()));
    }
}

// --- Sizes, memory and serialized forms.

#[test]
fn sizes_and_memory_are_checked_before_allocating() {
    assert_eq!(sample_size(0), Ok(0));
    let err = sample_size(-1).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidParameter);
    assert_eq!(err.message, "k must be 0 or more, got -1");
    set_working_memory_limit(1 << 20);
    let err = Sample::<Value>::new(1 << 20, 8).unwrap_err();
    assert_eq!(err.kind, ErrorKind::TooLarge);
    assert!(
        err.message.contains("dealcards.max_working_memory"),
        "{}",
        err.message
    );
    assert_eq!(
        Resample::<Value>::new(1 << 20, 8).unwrap_err().kind,
        ErrorKind::TooLarge
    );
    assert!(Sample::<Value>::new(1000, 8).is_ok());
    let mut all = ShuffleAll::new();
    let mut refused = None;
    for i in 0..100_000u32 {
        if let Err(e) = all.push(value(i), 4) {
            refused = Some((i, e));
            break;
        }
    }
    let (at, err) = refused.expect("a shuffle past the limit is refused");
    assert_eq!(err.kind, ErrorKind::TooLarge);
    assert!(at > 1000, "refused after {at} rows only");
    set_working_memory_limit(usize::MAX);
}

#[test]
fn serialized_states_round_trip_and_malformed_ones_are_refused() {
    let mut s = stream(40);
    let mut sample = Sample::new(3, 4).unwrap();
    for i in 0..10 {
        sample.offer(value(i), &mut s);
    }
    sample.offer(Value::new(&[9u8; 40]), &mut s);
    let mut bytes = Vec::new();
    sample.serialize(&mut bytes);
    let back = Sample::deserialize(&bytes).unwrap();
    assert_eq!(back.rows(), 11);
    assert_eq!(back.clone().finish(), sample.clone().finish());
    for cut in 0..bytes.len() {
        let err = Sample::deserialize(&bytes[..cut]).unwrap_err();
        assert!(is_malformed(&err));
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Sample::deserialize(&longer).is_err());
    assert!(
        ShuffleAll::deserialize(&bytes).is_err(),
        "another state's bytes"
    );
    let mut huge = vec![SHUFFLE_TAG];
    huge.extend_from_slice(&u64::MAX.to_le_bytes());
    assert!(ShuffleAll::deserialize(&huge).is_err());
}

#[test]
fn shuffles_of_words_serialize_as_shuffles_of_values() {
    let (mut words, mut values) = (ShuffleAll::new(), ShuffleAll::new());
    for n in [7u64, u32::MAX as u64, 0] {
        words.push(n, 0).unwrap();
        values.push(Value::new(&n.to_le_bytes()[..4]), 4).unwrap();
    }
    let (mut from_words, mut from_values) = (Vec::new(), Vec::new());
    words.serialize_words(4, &mut from_words);
    values.serialize(&mut from_values);
    assert_eq!(from_words, from_values);
    let back = ShuffleAll::deserialize(&from_values)
        .unwrap()
        .into_words(4)
        .unwrap();
    assert_eq!(back.rows(), words.rows());
    // A value of another width is not a word of this one.
    let wrong = ShuffleAll::deserialize(&from_values).unwrap().into_words(8);
    assert!(wrong.is_err_and(|e| is_malformed(&e)));
}
