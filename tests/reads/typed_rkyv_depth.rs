//! rkyv's validation of a recursive archive stops at the codec's depth bound, and its
//! refusals say why in a release build.
#![cfg(feature = "rkyv")]

use crate::common::open_db;
use crate::typed_rkyv::turn;
use pinrocks::codec::{BigEndian, DecodeError, Rkyv};
use pinrocks::{Error, Table};
use rkyv::{Archive, Deserialize, Serialize};

/// A recursive archive: each level a list of the next.
#[derive(Archive, Serialize, Deserialize, Debug, PartialEq)]
#[rkyv(serialize_bounds(
    __S: rkyv::ser::Writer + rkyv::ser::Allocator,
    __S::Error: rkyv::rancor::Source,
))]
#[rkyv(deserialize_bounds(__D::Error: rkyv::rancor::Source))]
#[rkyv(bytecheck(bounds(__C: rkyv::validation::ArchiveContext, __C::Error: rkyv::rancor::Source)))]
struct Nest(#[rkyv(omit_bounds)] Vec<Nest>);

/// `depth` lists, each holding the next.
fn nest(depth: usize) -> Nest {
    (0..depth).fold(Nest(Vec::new()), |inner, _| Nest(vec![inner]))
}

#[test]
fn validation_stops_at_its_depth_bound() {
    // Hostile bytes of a recursive type could make validation recurse until the stack
    // overflows, which aborts the process: the codec bounds rkyv's subtree claims at 64,
    // which for this shape reads lists nested 61 deep and refuses 62.
    let _turn = turn();
    let (_dir, db) = open_db(&[]);
    let nests: Table<'_, BigEndian<u32>, Rkyv<Nest>> = Table::new(db.default_cf());
    for depth in [0, 1, 61, 62, 200] {
        nests.put(&depth, &nest(depth as usize)).unwrap();
    }
    let depth_of = |a: &ArchivedNest| {
        let (mut level, mut depth) = (a, 0);
        while let Some(next) = level.0.first() {
            (level, depth) = (next, depth + 1);
        }
        depth
    };
    for depth in [0, 1, 61] {
        assert_eq!(nests.get(&depth, depth_of).unwrap(), Some(depth));
    }
    for depth in [62, 200] {
        match nests.get(&depth, depth_of) {
            Err(Error::Decode {
                codec: "Rkyv",
                source: DecodeError::Other(message),
                ..
            }) => assert!(message.contains("expected `Some`"), "{depth}: {message}"),
            other => panic!("{depth}: {other:?}"),
        }
    }
    // Other refusals say why in a release build too (rancor's `BoxedError`).
    db.put(&1u32.to_be_bytes(), b"\x01").unwrap();
    match nests.get(&1, depth_of) {
        Err(Error::Decode {
            source: DecodeError::Other(message),
            ..
        }) => assert!(!message.contains("without error information"), "{message}"),
        other => panic!("{other:?}"),
    }
}
