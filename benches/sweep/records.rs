//! The typed section's record, one shape in every format it is read through: an order with
//! an id, a customer's name, a list of lines (three integers each) and a note, at a number
//! of lines that sets its size. Each format's type, how it is built for key `i`, and the
//! two consumers (`id`, and every field summed) read the same numbers from each, so a
//! checksum that differs between formats is a decoding bug, not noise.
//!
//! The formats: JSON (`Json`, serde, owned), postcard (`Postcard`, serde, strings borrowed
//! from the pin; the list is a `Vec`, one allocation), rkyv (`Rkyv`, validated, read in
//! place or on a counted aligned copy), FlatBuffers (`Flat`, the example's `Order` table,
//! read through offsets after the verifier) and a fixed layout (`ZeroCopy`, names in
//! fixed-size arrays, as many lines as the size needs, no validation beyond the length).

use flatbuffers::FlatBufferBuilder;
use pinrocks::codec::{Codec, Flat, Json, Postcard, Raw, Record, Rkyv, Stored, ZeroCopy};
use pinrocks::{Db, Table};
use serde::{Deserialize, Serialize};
use zerocopy::little_endian::{U16, U32, U64};
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout, Unaligned};

#[allow(dead_code)]
#[path = "../../examples/flat_records/order.rs"]
mod flat;

/// The nominal sizes: the rkyv encoding's, about (each format's own in the table).
pub const SIZES: [usize; 4] = [64, 512, 4096, 65536];

/// Lines in a record of about `size` bytes in rkyv's format (16 bytes a line, about 48 for
/// the rest).
pub fn lines_for(size: usize) -> usize {
    (size / 16).saturating_sub(3).max(1)
}

/// Line `j` of record `i`: the numbers every format stores.
fn line(i: usize, j: usize) -> (u32, u16, u64) {
    (
        (i * 7 + j) as u32,
        (j % 60_000) as u16 + 1,
        (i as u64) * 1_000 + j as u64 * 25,
    )
}

fn customer(i: usize) -> String {
    format!("customer {i:06}")
}

fn note(i: usize) -> String {
    format!("leave at door {:03}", i % 1000)
}

/// What the "every field" consumer computes, from the parts of any format.
fn all_fields(
    id: u64,
    customer: usize,
    note: usize,
    lines: impl Iterator<Item = (u32, u16, u64)>,
) -> u64 {
    let lines: u64 = lines
        .map(|(sku, q, cents)| u64::from(sku) + u64::from(q) + cents)
        .fold(0, u64::wrapping_add);
    id.wrapping_add(customer as u64)
        .wrapping_add(note as u64)
        .wrapping_add(lines)
}

/// What reading record `i` of `lines` lines answers, one field or every field.
pub fn expected(i: usize, lines: usize, every: bool) -> u64 {
    if !every {
        return i as u64;
    }
    let (c, n) = (customer(i).len(), note(i).len());
    all_fields(i as u64, c, n, (0..lines).map(|j| line(i, j)))
}

// --- serde: JSON owned, postcard borrowed --------------------------------------------

#[derive(Serialize, Deserialize)]
pub struct Line {
    sku: u32,
    quantity: u16,
    cents: u64,
}

#[derive(Serialize, Deserialize)]
pub struct OwnedOrder {
    id: u64,
    customer: String,
    lines: Vec<Line>,
    note: Option<String>,
}

#[derive(Serialize, Deserialize)]
pub struct BorrowedOrder<'a> {
    id: u64,
    customer: &'a str,
    lines: Vec<Line>,
    #[serde(borrow)]
    note: Option<&'a str>,
}

impl Record for BorrowedOrder<'static> {
    type Of<'a> = BorrowedOrder<'a>;
}

fn serde_lines(i: usize, lines: usize) -> Vec<Line> {
    (0..lines)
        .map(|j| {
            let (sku, quantity, cents) = line(i, j);
            Line {
                sku,
                quantity,
                cents,
            }
        })
        .collect()
}

fn serde_all(id: u64, customer: &str, note: Option<&str>, lines: &[Line]) -> u64 {
    let lines = lines.iter().map(|l| (l.sku, l.quantity, l.cents));
    all_fields(id, customer.len(), note.map_or(0, str::len), lines)
}

// --- rkyv -------------------------------------------------------------------------------

#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
pub struct RkLine {
    sku: u32,
    quantity: u16,
    cents: u64,
}

#[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
pub struct RkOrder {
    id: u64,
    customer: String,
    lines: Vec<RkLine>,
    note: Option<String>,
}

// --- a fixed layout -----------------------------------------------------------------------

/// A line of the fixed layout: 14 bytes, alignment 1.
#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy)]
#[repr(C)]
pub struct FixedLine {
    sku: U32,
    quantity: U16,
    cents: U64,
}

/// The fixed layout of an order of `N` lines: names in 24-byte fields with their lengths.
#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct FixedOrder<const N: usize> {
    id: U64,
    customer_len: u8,
    customer: [u8; 24],
    note_len: u8,
    note: [u8; 24],
    lines: [FixedLine; N],
}

fn name24(s: &str) -> (u8, [u8; 24]) {
    let mut out = [0u8; 24];
    out[..s.len()].copy_from_slice(s.as_bytes());
    (s.len() as u8, out)
}

fn fixed_order<const N: usize>(i: usize) -> FixedOrder<N> {
    let (customer_len, customer) = name24(&customer(i));
    let (note_len, note) = name24(&note(i));
    let mut order = FixedOrder::<N>::new_zeroed();
    order.id = (i as u64).into();
    order.customer_len = customer_len;
    order.customer = customer;
    order.note_len = note_len;
    order.note = note;
    for (j, l) in order.lines.iter_mut().enumerate() {
        let (sku, quantity, cents) = line(i, j);
        *l = FixedLine {
            sku: sku.into(),
            quantity: quantity.into(),
            cents: cents.into(),
        };
    }
    order
}

fn fixed_all<const N: usize>(order: &FixedOrder<N>) -> u64 {
    let lines = order
        .lines
        .iter()
        .map(|l| (l.sku.get(), l.quantity.get(), l.cents.get()));
    all_fields(
        order.id.get(),
        usize::from(order.customer_len),
        usize::from(order.note_len),
        lines,
    )
}

// --- the formats as the section sees them ------------------------------------------------

/// The formats, in the order of the tables.
pub const FORMATS: [&str; 5] = ["json", "postcard", "rkyv", "flatbuffers", "fixed"];

/// One read of one record: a key in, a consumer's answer out.
pub type TypedRead<'a> = Box<dyn FnMut(&[u8]) -> u64 + 'a>;

/// Stores records `0..count` of `lines` lines in `db` at the sweep's keys, in `format`;
/// returns the bytes a record took, on average.
pub fn populate(db: &Db, format: &str, lines: usize, count: usize) -> usize {
    let mut total = 0usize;
    let mut builder = FlatBufferBuilder::new();
    for i in 0..count {
        let key = crate::base::key(i);
        let mut put = |bytes: &[u8]| {
            total += bytes.len();
            db.put(&key, bytes).unwrap();
        };
        match format {
            "json" => Json::<OwnedOrder>::with_encoded(
                &OwnedOrder {
                    id: i as u64,
                    customer: customer(i),
                    lines: serde_lines(i, lines),
                    note: Some(note(i)),
                },
                &mut put,
            )
            .unwrap(),
            "postcard" => {
                let (c, n) = (customer(i), note(i));
                let order = BorrowedOrder {
                    id: i as u64,
                    customer: &c,
                    lines: serde_lines(i, lines),
                    note: Some(&n),
                };
                Postcard::<BorrowedOrder<'static>>::with_encoded(&order, &mut put).unwrap()
            }
            "rkyv" => Rkyv::<RkOrder>::with_encoded(
                &RkOrder {
                    id: i as u64,
                    customer: customer(i),
                    lines: (0..lines)
                        .map(|j| {
                            let (sku, quantity, cents) = line(i, j);
                            RkLine {
                                sku,
                                quantity,
                                cents,
                            }
                        })
                        .collect(),
                    note: Some(note(i)),
                },
                &mut put,
            )
            .unwrap(),
            "flatbuffers" => put(&flat_order(&mut builder, i, lines)),
            "fixed" => with_fixed(lines, i, &mut put),
            other => panic!("no format {other:?}"),
        }
    }
    total / count.max(1)
}

fn flat_order(builder: &mut FlatBufferBuilder<'static>, i: usize, lines: usize) -> Vec<u8> {
    builder.reset();
    let made: Vec<_> = (0..lines)
        .map(|j| {
            let (sku, quantity, cents) = line(i, j);
            flat::Line::create(
                builder,
                &flat::LineArgs {
                    sku,
                    quantity,
                    cents,
                },
            )
        })
        .collect();
    let made = builder.create_vector(&made);
    let customer = builder.create_string(&customer(i));
    let note = builder.create_string(&note(i));
    let order = flat::Order::create(
        builder,
        &flat::OrderArgs {
            id: i as u64,
            customer: Some(customer),
            lines: Some(made),
            note: Some(note),
        },
    );
    builder.finish(order, None);
    builder.finished_data().to_vec()
}

/// Runs `body!(N)` with the fixed layout's `N` for a line count of [`SIZES`].
macro_rules! per_fixed_size {
    ($lines:expr, $body:ident) => {
        match $lines {
            1 => $body!(1),
            29 => $body!(29),
            253 => $body!(253),
            4093 => $body!(4093),
            other => panic!("no fixed layout of {other} lines (sizes: {:?})", SIZES),
        }
    };
}

fn with_fixed(lines: usize, i: usize, put: &mut dyn FnMut(&[u8])) {
    macro_rules! encode {
        ($n:literal) => {
            ZeroCopy::<FixedOrder<$n>>::with_encoded(&fixed_order::<$n>(i), put).unwrap()
        };
    }
    per_fixed_size!(lines, encode)
}

/// The consumers, one per format: the id alone, or every field summed.
fn json(o: OwnedOrder, every: bool) -> u64 {
    match every {
        true => serde_all(o.id, &o.customer, o.note.as_deref(), &o.lines),
        false => o.id,
    }
}

fn postcard(o: BorrowedOrder<'_>, every: bool) -> u64 {
    match every {
        true => serde_all(o.id, o.customer, o.note, &o.lines),
        false => o.id,
    }
}

fn rkyv(o: &ArchivedRkOrder, every: bool) -> u64 {
    let id = o.id.to_native();
    if !every {
        return id;
    }
    let lines = o.lines.iter().map(|l| {
        (
            l.sku.to_native(),
            l.quantity.to_native(),
            l.cents.to_native(),
        )
    });
    let note = o.note.as_ref().map_or(0, |n| n.len());
    all_fields(id, o.customer.len(), note, lines)
}

fn flat(o: flat::Order<'_>, every: bool) -> u64 {
    if !every {
        return o.id();
    }
    let lines = o.lines().into_iter().flatten();
    let lines = lines.map(|l| (l.sku(), l.quantity(), l.cents()));
    let len = |s: Option<&str>| s.map_or(0, str::len);
    all_fields(o.id(), len(o.customer()), len(o.note()), lines)
}

fn fixed<const N: usize>(o: &FixedOrder<N>, every: bool) -> u64 {
    match every {
        true => fixed_all(o),
        false => o.id.get(),
    }
}

/// One read of `format`'s codec `C` as `way` says: through a [`Table`] over the default
/// family of `db`, or (`Way::Stored`) from a [`Stored`] value kept from one read per key.
macro_rules! way {
    ($db:expr, $way:expr, $codec:ty, $consume:expr) => {{
        let table = Table::<Raw, $codec>::new($db.default_cf());
        match $way {
            Way::Table { every } => Box::new(move |key: &[u8]| {
                let read = table.get(key, |o| $consume(o, every));
                read.unwrap().expect("present")
            }) as TypedRead<'_>,
            Way::Stored { count } => {
                let stored: Vec<Stored<$codec>> = (0..count)
                    .map(|i| table.get_stored(&crate::base::key(i)).unwrap().unwrap())
                    .collect();
                let mut next = 0;
                Box::new(move |_key: &[u8]| {
                    next = (next + 1) % stored.len();
                    $consume(stored[next].get(), true)
                })
            }
        }
    }};
}

/// How a record is read.
#[derive(Clone, Copy)]
pub enum Way {
    /// Through a table, the id alone or every field.
    Table { every: bool },
    /// Every field of a kept [`Stored`] value of each of `count` keys in turn (the key
    /// given is ignored): the decode alone, no read.
    Stored { count: usize },
}

/// A read of `format` records of `lines` lines stored in `db`, as `way` says.
pub fn typed_read<'a>(db: &'a Db, format: &str, lines: usize, way: Way) -> TypedRead<'a> {
    match format {
        "json" => way!(db, way, Json<OwnedOrder>, json),
        "postcard" => way!(db, way, Postcard<BorrowedOrder<'static>>, postcard),
        "rkyv" => way!(db, way, Rkyv<RkOrder>, rkyv),
        "flatbuffers" => way!(db, way, Flat<flat::Order<'static>>, flat),
        "fixed" => {
            macro_rules! fixed_way {
                ($n:literal) => {
                    way!(db, way, ZeroCopy<FixedOrder<$n>>, fixed::<$n>)
                };
            }
            per_fixed_size!(lines, fixed_way)
        }
        other => panic!("no format {other:?}"),
    }
}

/// The plain pinned read of the same bytes, its length alone: the read a decode adds to.
pub fn pinned_read(db: &Db) -> TypedRead<'_> {
    let reader = db.reader();
    Box::new(move |key: &[u8]| {
        reader
            .get_pinned(key, |v| v.len() as u64)
            .unwrap()
            .expect("present")
    })
}
