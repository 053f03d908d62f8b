//! shuffle_spread: an array in random order with items of one group kept apart (the core's
//! `spread`). This layer reads the group of each item, checks the arguments and moves the items;
//! docs/spread.md says what the order guarantees.

use pgrx::callconv::{Arg, ArgAbi};
use pgrx::pgrx_sql_entity_graph::metadata::{
    ArgumentError, ReturnsError, ReturnsRef, SqlMappingRef, SqlTranslatable, TypeOrigin,
};
use pgrx::prelude::*;
use pgrx::{pg_sys, AnyArray, FromDatum};

use crate::arrays::{ElementLayout, FlatArray};
use crate::{check_for_interrupts, ok_or_raise};

use dealcards_core::error::Error;
use dealcards_core::items::ItemBounds;
use dealcards_core::rng::Stream;
use dealcards_core::scratch::Scratch;
use dealcards_core::spread::{number_groups, spread, spread_nested};

/// An `anycompatiblearray` argument: a polymorphic array whose type is resolved apart from the
/// `anyarray` arguments and result, so the items and their groups can be arrays of different
/// types (track ids and artist names).
#[derive(Debug, Clone, Copy)]
pub struct AnyCompatibleArray(AnyArray);

impl FromDatum for AnyCompatibleArray {
    const GET_TYPOID: bool = true;

    unsafe fn from_datum(datum: pg_sys::Datum, is_null: bool) -> Option<Self> {
        // SAFETY: the caller passes an array datum, as for from_polymorphic_datum.
        unsafe { Self::from_polymorphic_datum(datum, is_null, pg_sys::ANYCOMPATIBLEARRAYOID) }
    }

    unsafe fn from_polymorphic_datum(
        datum: pg_sys::Datum,
        is_null: bool,
        typoid: pg_sys::Oid,
    ) -> Option<Self> {
        // SAFETY: the datum is an array of type `typoid`, as the caller promises.
        unsafe { AnyArray::from_polymorphic_datum(datum, is_null, typoid) }.map(AnyCompatibleArray)
    }
}

// SAFETY: the argument is an array datum of the type Postgres resolved for it, which
// from_polymorphic_datum reads with that type's oid; the functions taking it are STRICT, so it
// is never NULL.
unsafe impl<'fcx> ArgAbi<'fcx> for AnyCompatibleArray {
    unsafe fn unbox_arg_unchecked(arg: Arg<'_, 'fcx>) -> Self {
        let index = arg.index();
        // SAFETY: as above.
        unsafe { arg.unbox_arg_using_from_datum() }
            .unwrap_or_else(|| panic!("argument {index} must not be null"))
    }
}

// SAFETY: the SQL type is the anycompatiblearray pseudo-type, which is what this maps to.
unsafe impl SqlTranslatable for AnyCompatibleArray {
    const TYPE_IDENT: &'static str = pgrx::pgrx_resolved_type!(AnyCompatibleArray);
    const TYPE_ORIGIN: TypeOrigin = TypeOrigin::External;
    const ARGUMENT_SQL: Result<SqlMappingRef, ArgumentError> =
        Ok(SqlMappingRef::literal("anycompatiblearray"));
    const RETURN_SQL: Result<ReturnsRef, ReturnsError> = Ok(ReturnsRef::One(
        SqlMappingRef::literal("anycompatiblearray"),
    ));
}

/// What identifies a group: the stored bytes of a group value without their length header, or
/// the position of a NULL group (each NULL is a group of its own).
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum GroupKey<'a> {
    Value(&'a [u8]),
    Null(usize),
}

/// The group number of each item of `items`, from the one-dimensional array `groups` (the
/// argument called `what`).
fn group_numbers(items: &FlatArray, groups: &FlatArray, what: &str) -> (Scratch<u32>, usize) {
    if groups.ndim() > 1 {
        crate::raise(Error::invalid(format!(
            "{what} must be a one-dimensional array, got {} dimensions",
            groups.ndim()
        )));
    }
    let n = items.items();
    if groups.items() != n {
        crate::raise(Error::invalid(format!(
            "items and {what} must have the same length: {n} items, {} {what}",
            groups.items()
        )));
    }
    let layout = ElementLayout::of(groups.elemtype());
    let bounds = groups.item_bounds(layout);
    let (data, nulls) = (groups.data(), groups.null_bitmap());
    let key = |i: usize| -> GroupKey<'_> {
        if nulls.is_some_and(|bitmap| bitmap[i / 8] & (1 << (i % 8)) == 0) {
            return GroupKey::Null(i);
        }
        let start = match &bounds {
            ItemBounds::Uniform { item_len } => i * *item_len as usize,
            ItemBounds::Listed(offsets) => offsets[i] as usize,
        };
        let stored = &data[start..];
        let len = layout.stored_len(stored);
        let value = match layout.typlen {
            // A varlena's header says how long it is, not what it is: a short value may be
            // stored with a 1-byte or a 4-byte header.
            -1 => {
                let ptr = stored.as_ptr() as *const pg_sys::varlena;
                // SAFETY: stored_len has read this header: its first byte is there, and four
                // when it is not a 1-byte header.
                let header = if unsafe { pgrx::varatt_is_1b(ptr) } {
                    1
                } else {
                    4
                };
                &stored[header..len]
            }
            // A C string without its terminating zero.
            -2 => &stored[..len - 1],
            _ => &stored[..len],
        };
        GroupKey::Value(value)
    };
    ok_or_raise(number_groups(n, key, &mut check_for_interrupts))
}

fn spread_array(
    items: &FlatArray,
    groups: &FlatArray,
    subgroups: Option<&FlatArray>,
    stream: &mut Stream,
) -> AnyArray {
    let (numbers, count) = group_numbers(items, groups, "groups");
    let subnumbers = subgroups.map(|subgroups| group_numbers(items, subgroups, "subgroups").0);
    if items.items() < 2 {
        return items.unchanged();
    }
    let check = &mut check_for_interrupts;
    let order = ok_or_raise(match &subnumbers {
        Some(subnumbers) => spread_nested(&numbers, count, subnumbers, stream, check),
        None => spread(&numbers, count, stream, check),
    });
    drop((numbers, subnumbers));
    let bounds = items.bounds();
    let moved = ok_or_raise(Scratch::from_fn(order.len(), |p| {
        bounds.item(order[p] as usize)
    }));
    items.rearranged(&moved, items.lower_bounds()[0])
}

/// Checks the arguments of a live spread, then spreads from this backend's OS-keyed stream.
fn live_spread(items: &FlatArray, groups: &FlatArray, subgroups: Option<&FlatArray>) -> AnyArray {
    if items.items() < 2 {
        // Checked all the same, so a call is valid or not whatever the stream.
        group_numbers(items, groups, "groups");
        if let Some(subgroups) = subgroups {
            group_numbers(items, subgroups, "subgroups");
        }
        return items.unchanged();
    }
    ok_or_raise(crate::with_live(|stream| {
        spread_array(items, groups, subgroups, stream)
    }))
}

/// `items` (its first dimension; sub-arrays move whole) in a random order in which no two
/// neighbours have the same group in `groups` (item i's group is `groups[i]`) unless that cannot
/// be avoided, each group's items spread evenly; from this backend's OS-keyed ChaCha20 stream.
#[pg_extern(volatile, strict, parallel_safe)]
fn shuffle_spread(items: AnyArray, groups: AnyCompatibleArray) -> AnyArray {
    crate::limit_working_memory();
    live_spread(&FlatArray::of(&items), &FlatArray::of(&groups.0), None)
}

/// The replayable spread of `items` by `groups` for a 32-byte seed (specified in
/// docs/spread.md).
#[pg_extern(immutable, strict, parallel_safe, name = "shuffle_spread")]
fn shuffle_spread_seeded(items: AnyArray, groups: AnyCompatibleArray, seed: &[u8]) -> AnyArray {
    crate::limit_working_memory();
    let mut stream = ok_or_raise(Stream::from_seed_bytes(seed));
    spread_array(
        &FlatArray::of(&items),
        &FlatArray::of(&groups.0),
        None,
        &mut stream,
    )
}

/// The spread on two levels: by `groups` (artists), and within each group by `subgroups`
/// (albums), from this backend's OS-keyed ChaCha20 stream.
#[pg_extern(volatile, strict, parallel_safe, name = "shuffle_spread")]
fn shuffle_spread_nested(
    items: AnyArray,
    groups: AnyCompatibleArray,
    subgroups: AnyCompatibleArray,
) -> AnyArray {
    crate::limit_working_memory();
    let subgroups = FlatArray::of(&subgroups.0);
    live_spread(
        &FlatArray::of(&items),
        &FlatArray::of(&groups.0),
        Some(&subgroups),
    )
}

/// The replayable spread on two levels for a 32-byte seed.
#[pg_extern(immutable, strict, parallel_safe, name = "shuffle_spread")]
fn shuffle_spread_nested_seeded(
    items: AnyArray,
    groups: AnyCompatibleArray,
    subgroups: AnyCompatibleArray,
    seed: &[u8],
) -> AnyArray {
    crate::limit_working_memory();
    let mut stream = ok_or_raise(Stream::from_seed_bytes(seed));
    let subgroups = FlatArray::of(&subgroups.0);
    spread_array(
        &FlatArray::of(&items),
        &FlatArray::of(&groups.0),
        Some(&subgroups),
        &mut stream,
    )
}
