//! Unit tests of `items`, in a file of their own: the module reads without them.

use super::*;
use dealcards_fairness::stats;

const ALPHA: f64 = 1e-4;

fn seeded(seed: u8) -> Stream {
    Stream::from_seed([seed; 32])
}

fn indices(items: &[Item]) -> Vec<u32> {
    items.iter().map(|item| item.index).collect()
}

/// Items of one byte each, shuffled: the order shuffle_array gives an array of `n` items.
pub(crate) fn shuffled_order(n: usize, stream: &mut Stream) -> Vec<u32> {
    indices(&shuffled_items(&ItemBounds::Uniform { item_len: 1 }, n, stream, &mut || {}).unwrap())
}

pub(crate) fn sampled_order(n: usize, k: usize, stream: &mut Stream) -> Vec<u32> {
    let bounds = ItemBounds::Uniform { item_len: 1 };
    indices(&sampled_items(&bounds, n, k, stream, &mut || {}).unwrap())
}

/// Items of different lengths in one data area, as a text[] would have them.
fn word_items(words: &[&str]) -> (Vec<u8>, ItemBounds) {
    let mut data = Vec::new();
    let mut offsets = vec![0];
    for w in words {
        data.extend_from_slice(w.as_bytes());
        offsets.push(data.len() as u32);
    }
    (
        data,
        ItemBounds::Listed(Scratch::from_slice(&offsets).unwrap()),
    )
}

fn items_in_order(bounds: &ItemBounds, order: &[u32]) -> Vec<Item> {
    order.iter().map(|&i| bounds.item(i as usize)).collect()
}

fn gathered(data: &[u8], items: &[Item]) -> Vec<u8> {
    let mut out = vec![0xeeu8; gathered_len(items)];
    gather_items(data, items, &mut out, &mut || {});
    out
}

fn gathered_words(words: &[&str], order: &[u32]) -> Vec<u8> {
    let (data, bounds) = word_items(words);
    gathered(&data, &items_in_order(&bounds, order))
}

#[test]
fn gather_moves_whole_items_of_any_size() {
    let words = ["a", "", "ccc", "bb"];
    assert_eq!(gathered_words(&words, &[3, 0, 2, 1]), b"bbaccc");
    assert_eq!(gathered_words(&words, &[2, 2]), b"cccccc");
    assert_eq!(gathered_words(&words, &[]), b"");
    // Items of every size around the 16-byte chunks and the small-item limit, so that
    // chunked copies that run over are overwritten by the next item, and the last items
    // of the output and of the data are copied exactly.
    let words: Vec<String> = (0..140)
        .map(|i| ((b'a' + (i % 26) as u8) as char).to_string().repeat(i % 70))
        .collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    for order in [
        (0..140).rev().collect::<Vec<u32>>(),
        (0..140).collect(),
        shuffled_order(140, &mut seeded(6)),
    ] {
        let expected: String = order.iter().map(|&i| words[i as usize]).collect();
        assert_eq!(gathered_words(&words, &order), expected.as_bytes());
    }
    let data: Vec<u8> = (0..200).map(|i| i as u8).collect();
    let uniform = ItemBounds::Uniform { item_len: 2 };
    let order: Vec<u32> = (0..100).rev().collect();
    let out = gathered(&data, &items_in_order(&uniform, &order));
    assert_eq!(out.len(), 200);
    assert_eq!(&out[..4], [198, 199, 196, 197]);
    assert_eq!(&out[196..], [2, 3, 0, 1]);
    // The last item's padding may lie past the data: it is written as zeros.
    let data = [1u8, 2, 3, 4, 5];
    let bounds = ItemBounds::Listed(Scratch::from_slice(&[0, 4, 8]).unwrap());
    assert_eq!(
        gathered(&data, &items_in_order(&bounds, &[1, 0])),
        [5, 0, 0, 0, 1, 2, 3, 4]
    );
    assert_eq!(
        gathered(&data, &items_in_order(&bounds, &[0, 1])),
        [1, 2, 3, 4, 5, 0, 0, 0]
    );
}

#[test]
fn null_bits_follow_their_items() {
    // 5 items of 3 elements; bit set = not null. Item 1 has a null in the middle, item 4 is
    // all null.
    let mut bitmap = vec![0xffu8, 0xff];
    for e in [4, 12, 13, 14] {
        bitmap[e / 8] &= !(1 << (e % 8));
    }
    let bounds = ItemBounds::Uniform { item_len: 8 };
    let order = items_in_order(&bounds, &[4, 1, 0]);
    let mut out = vec![0u8; 2];
    gather_null_bits(&bitmap, 3, &order, &mut out);
    let bits: Vec<bool> = (0..9).map(|e| bit(&out, e)).collect();
    assert_eq!(
        bits,
        [false, false, false, true, false, true, true, true, true]
    );
    assert!(
        (9..16).all(|e| !bit(&out, e)),
        "bits past the items stay zero"
    );
    assert!(any_null(&bitmap, 3, &order));
    assert!(!any_null(&bitmap, 3, &items_in_order(&bounds, &[0, 2, 3])));
}

/// Shuffles four items of different lengths with `shuffle` and copies them with
/// `gather_items`, as shuffle_array does, and counts each resulting permutation.
fn array_permutation_counts(
    shuffle: &mut dyn FnMut(&[u8], &ItemBounds) -> Vec<u8>,
    draws: usize,
) -> Vec<u64> {
    let (data, bounds) = word_items(&["0", "11", "222", "3333"]);
    let mut counts = vec![0u64; 24];
    for _ in 0..draws {
        let out = shuffle(&data, &bounds);
        // Reading the items back: each one is a run of its own digit.
        let mut items = Vec::new();
        for &b in &out {
            let item = usize::from(b - b'0');
            if items.last() != Some(&item) {
                items.push(item);
            }
        }
        assert_eq!(items.len(), 4);
        counts[dealcards_fairness::order_index(&items)] += 1;
    }
    counts
}

/// A broken shuffle of the fairness module, on item indices.
type BrokenShuffle = fn(&mut [u32], &mut Stream);

/// The order a broken shuffle (from the fairness module) gives n items.
fn broken_order(n: usize, shuffle: BrokenShuffle, stream: &mut Stream) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n as u32).collect();
    shuffle(&mut order, stream);
    order
}

#[test]
fn array_shuffle_permutation_frequency_is_uniform_and_catches_biased_shuffles() {
    let draws = 48_000;
    let mut stream = seeded(31);
    let fair = array_permutation_counts(
        &mut |data, bounds| {
            gathered(
                data,
                &shuffled_items(bounds, 4, &mut stream, &mut || {}).unwrap(),
            )
        },
        draws,
    );
    assert!(fair.iter().all(|&c| c > 0), "a permutation never appeared");
    let test = stats::chi_square_uniform(&fair);
    assert_eq!(test.df, 23);
    assert!(test.p_value > ALPHA, "fair shuffle rejected: {test:?}");

    let broken: [(&str, BrokenShuffle); 2] = [
        ("naive", dealcards_fairness::naive_swap),
        ("Sattolo's", dealcards_fairness::sattolo),
    ];
    for (name, shuffle) in broken {
        let mut stream = seeded(31);
        let counts = array_permutation_counts(
            &mut |data, bounds| {
                gathered(
                    data,
                    &items_in_order(bounds, &broken_order(4, shuffle, &mut stream)),
                )
            },
            draws,
        );
        let test = stats::chi_square_uniform(&counts);
        assert!(test.p_value < ALPHA, "{name} shuffle not caught: {test:?}");
    }
}

/// Shuffles the items of `data` in slots of N bytes and writes them out, as shuffle_array
/// does for small items.
fn slot_shuffled<const N: usize>(data: &[u8], bounds: &ItemBounds, stream: &mut Stream) -> Vec<u8> {
    let count = match bounds {
        ItemBounds::Listed(offsets) => offsets.len() - 1,
        ItemBounds::Uniform { item_len } => data.len() / *item_len as usize,
    };
    let mut slots = Scratch::try_from_fn(count, |i| {
        let item = bounds.item(i);
        slot_of::<N>(data, item.start as usize, (item.start + item.len) as usize)
    })
    .unwrap()
    .expect("every item fits");
    fisher_yates(&mut slots, stream, &mut || {});
    let mut out = vec![0xeeu8; slotted_len(&slots)];
    write_slots(&slots, &mut out, &mut || {});
    out
}

#[test]
fn slots_hold_items_up_to_their_size_and_pad_with_zeros() {
    let data = b"abcdefghijklmnopq";
    let slot = slot_of::<12>(data, 2, 5).unwrap();
    assert_eq!(slot.len, 3);
    assert_eq!(&slot.bytes[..3], b"cde");
    assert_eq!(slot_of::<12>(data, 0, 12).unwrap().bytes, *b"abcdefghijkl");
    assert!(slot_of::<12>(data, 0, 13).is_none());
    // The last item's padding past the end of the data is zeros.
    let slot = slot_of::<12>(data, 14, 20).unwrap();
    assert_eq!(slot.len, 6);
    assert_eq!(&slot.bytes[..6], [b'o', b'p', b'q', 0, 0, 0]);
    assert!(slots_affordable::<12>(1_000_000, 1_000_000));
    assert!(slots_affordable::<28>(1_000_000, 8_000_000));
    assert!(!slots_affordable::<28>(1_000_000, 7_999_999));
}

#[test]
fn slots_give_the_same_order_as_records_for_items_of_every_size() {
    // Items of 0..=12 bytes (16-byte slots) and 0..=28 bytes (32-byte slots), several
    // seeds and counts; the reference is the record shuffle and gather.
    for (max, seeds) in [(12usize, 0u8..6), (28, 6..12)] {
        for seed in seeds {
            let n = 1 + 37 * seed as usize;
            let words: Vec<String> = (0..n)
                .map(|i| {
                    ((b'a' + (i % 26) as u8) as char)
                        .to_string()
                        .repeat(i % (max + 1))
                })
                .collect();
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            let (data, bounds) = word_items(&words);
            let by_records = gathered(
                &data,
                &shuffled_items(&bounds, n, &mut seeded(seed), &mut || {}).unwrap(),
            );
            let by_slots = match max {
                12 => slot_shuffled::<12>(&data, &bounds, &mut seeded(seed)),
                _ => slot_shuffled::<28>(&data, &bounds, &mut seeded(seed)),
            };
            assert_eq!(
                by_slots, by_records,
                "seed {seed}, {n} items up to {max} bytes"
            );
        }
    }
    // Fixed-size items, the last one's padding past the data.
    let data = [1u8, 2, 3, 4, 5];
    let bounds = ItemBounds::Listed(Scratch::from_slice(&[0, 4, 8]).unwrap());
    let by_records = gathered(
        &data,
        &shuffled_items(&bounds, 2, &mut seeded(1), &mut || {}).unwrap(),
    );
    assert_eq!(
        slot_shuffled::<12>(&data, &bounds, &mut seeded(1)),
        by_records
    );
}

#[test]
fn slot_shuffle_permutation_frequency_is_uniform() {
    let mut stream = seeded(32);
    let counts = array_permutation_counts(
        &mut |data, bounds| slot_shuffled::<12>(data, bounds, &mut stream),
        48_000,
    );
    assert!(
        counts.iter().all(|&c| c > 0),
        "a permutation never appeared"
    );
    let test = stats::chi_square_uniform(&counts);
    assert!(test.p_value > ALPHA, "fair slot shuffle rejected: {test:?}");
}
