//! Typed reads: every codec round-trips (property-based), decodes from misaligned bytes,
//! reports every error with its key and codec, and big-endian keys iterate in order.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::common::{open_db, settle, STAGES};
use pinrocks::codec::{
    Array, BigEndian, Bool, Codec, DecodeError, EpochMillis, LittleEndian, Raw, Utf8, ZeroCopy, F64,
};
use pinrocks::{Error, Table};
use proptest::prelude::*;
use zerocopy::byteorder::{BigEndian as Be, I32, U16, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

#[derive(Debug, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct Record {
    id: U64<Be>,
    delta: I32<Be>,
    port: U16<Be>,
    tag: [u8; 3],
    flag: u8,
}

/// Encodes, then decodes from every misalignment 0..8 of a buffer, returning the owned
/// decodings (all of which must agree).
fn round_trip<C: Codec>(item: &C::Item<'_>) -> Vec<C::Owned> {
    let encoded = C::with_encoded(item, <[u8]>::to_vec).unwrap();
    (0..8)
        .map(|offset| {
            let mut shifted = vec![0xAAu8; offset];
            shifted.extend_from_slice(&encoded);
            C::to_owned(C::decode(&shifted[offset..]).unwrap())
        })
        .collect()
}

fn assert_round_trip<C: Codec>(item: &C::Item<'_>, expected: C::Owned)
where
    C::Owned: PartialEq + std::fmt::Debug + Clone,
{
    assert_eq!(round_trip::<C>(item), vec![expected; 8], "{}", C::NAME);
}

macro_rules! int_props {
    ($($name:ident: $t:ty),*) => {$(
        proptest! {
            #[test]
            fn $name(a: $t, b: $t) {
                assert_round_trip::<BigEndian<$t>>(&a, a);
                assert_round_trip::<LittleEndian<$t>>(&a, a);
                let ea = BigEndian::<$t>::with_encoded(&a, <[u8]>::to_vec).unwrap();
                let eb = BigEndian::<$t>::with_encoded(&b, <[u8]>::to_vec).unwrap();
                prop_assert_eq!(ea.cmp(&eb), a.cmp(&b), "big-endian bytes sort as numbers");
                prop_assert_eq!(ea.len(), std::mem::size_of::<$t>());
            }
        }
    )*};
}

int_props!(
    ints_u8: u8, ints_u16: u16, ints_u32: u32, ints_u64: u64, ints_u128: u128,
    ints_i8: i8, ints_i16: i16, ints_i32: i32, ints_i64: i64, ints_i128: i128
);

proptest! {
    #[test]
    fn raw_utf8_array_bool(bytes: Vec<u8>, text: String, array: [u8; 5], flag: bool) {
        assert_round_trip::<Raw>(&bytes, bytes.clone());
        assert_round_trip::<Utf8>(&text, text.clone());
        assert_round_trip::<Array<5>>(&array, array);
        assert_round_trip::<Bool>(&flag, flag);
    }

    #[test]
    fn f64_round_trips_bits_and_orders(a_bits: u64, b in -1e300f64..1e300) {
        let a = f64::from_bits(a_bits);
        let back = round_trip::<F64>(&a);
        prop_assert!(back.iter().all(|x| x.to_bits() == a_bits), "every bit pattern, NaN too");
        if !a.is_nan() {
            let ea = F64::with_encoded(&a, <[u8]>::to_vec).unwrap();
            let eb = F64::with_encoded(&b, <[u8]>::to_vec).unwrap();
            prop_assert_eq!(ea.cmp(&eb), a.total_cmp(&b));
        }
    }

    #[test]
    fn epoch_millis_round_trips_whole_milliseconds(ms in -62_135_596_800_000i64..253_402_300_799_999) {
        let time = if ms >= 0 {
            UNIX_EPOCH + Duration::from_millis(ms as u64)
        } else {
            UNIX_EPOCH - Duration::from_millis(ms.unsigned_abs())
        };
        assert_round_trip::<EpochMillis>(&time, time);
        prop_assert_eq!(EpochMillis::millis(&time), ms);
    }

    #[test]
    fn zerocopy_records(id: u64, delta: i32, port: u16, tag: [u8; 3], flag: u8) {
        let record = Record { id: id.into(), delta: delta.into(), port: port.into(), tag, flag };
        let back = round_trip::<ZeroCopy<Record>>(&record);
        for r in back {
            prop_assert_eq!(&r, &record);
        }
    }
}

#[test]
fn epoch_millis_drops_sub_millisecond_precision_towards_the_past() {
    let after = UNIX_EPOCH + Duration::from_micros(1_500);
    let before = UNIX_EPOCH - Duration::from_micros(1_500);
    assert_eq!(EpochMillis::millis(&after), 1);
    assert_eq!(EpochMillis::millis(&before), -2);
    assert_eq!(
        EpochMillis::with_encoded(&after, <[u8]>::to_vec).unwrap(),
        1i64.to_be_bytes()
    );
}

#[test]
fn every_decode_error() {
    assert_eq!(
        BigEndian::<u32>::decode(&[1, 2, 3]).unwrap_err(),
        DecodeError::Length {
            expected: 4,
            actual: 3
        }
    );
    assert_eq!(
        LittleEndian::<i16>::decode(&[1, 2, 3]).unwrap_err(),
        DecodeError::Length {
            expected: 2,
            actual: 3
        }
    );
    assert_eq!(
        F64::decode(&[0; 7]).unwrap_err(),
        DecodeError::Length {
            expected: 8,
            actual: 7
        }
    );
    assert_eq!(
        Array::<4>::decode(&[0; 5]).unwrap_err(),
        DecodeError::Length {
            expected: 4,
            actual: 5
        }
    );
    assert!(matches!(
        Utf8::decode(&[b'a', 0xFF]).unwrap_err(),
        DecodeError::Utf8(_)
    ));
    assert_eq!(Bool::decode(&[2]).unwrap_err(), DecodeError::Bool(2));
    assert_eq!(
        Bool::decode(&[]).unwrap_err(),
        DecodeError::Length {
            expected: 1,
            actual: 0
        }
    );
    // The extremes decode without panicking (to the exact instant where SystemTime holds it).
    for ms in [i64::MIN, i64::MAX] {
        match EpochMillis::decode(&ms.to_be_bytes()) {
            Ok(t) => assert_eq!(EpochMillis::millis(&t), ms),
            Err(e) => assert_eq!(e, DecodeError::Timestamp(ms)),
        }
    }
    assert_eq!(
        ZeroCopy::<Record>::decode(&[0; 17]).unwrap_err(),
        DecodeError::Length {
            expected: 18,
            actual: 17
        }
    );
}

#[test]
fn table_reports_decode_errors_with_key_and_codec() {
    let (_dir, db) = open_db(&[]);
    db.put(b"short", &[1, 2]).unwrap();
    db.put(b"bad utf8", &[0xC3]).unwrap();
    let numbers: Table<Raw, BigEndian<u64>> = Table::new(db.default_cf());
    match numbers.get(b"short", |n| n) {
        Err(Error::Decode { codec, key, source }) => {
            assert_eq!(codec, "BigEndian<u64>");
            assert_eq!(key, b"short");
            assert_eq!(
                source,
                DecodeError::Length {
                    expected: 8,
                    actual: 2
                }
            );
        }
        other => panic!("expected a decode error, got {other:?}"),
    }
    let text: Table<Raw, Utf8> = Table::new(db.default_cf());
    let err = text.get_owned(b"bad utf8").unwrap_err();
    assert!(
        matches!(&err, Error::Decode { codec: "Utf8", key, .. } if key == b"bad utf8"),
        "{err}"
    );
    assert_eq!(text.get(b"absent", |s: &str| s.len()).unwrap(), None);
    // A decode error in iteration names the key too.
    let mut it = numbers.iter();
    it.seek_to_first();
    let err = it.entry().unwrap().unwrap_err();
    assert!(
        matches!(&err, Error::Decode { key, .. } if key == b"bad utf8"),
        "{err}"
    );
}

#[test]
fn table_reads_borrowed_values_from_every_stage() {
    let (_dir, db) = open_db(&["records"]);
    let records: Table<Utf8, ZeroCopy<Record>> = Table::new(db.cf("records").unwrap());
    let names: Table<BigEndian<u32>, Utf8> = Table::new(db.default_cf());
    // Keys of every length 1..=16 put values at every offset inside the data blocks.
    for i in 0u32..64 {
        let key = "k".repeat(1 + i as usize % 16) + &i.to_string();
        let record = Record {
            id: (i as u64 * 1_000_003).into(),
            delta: (-(i as i32)).into(),
            port: (i as u16).into(),
            tag: [i as u8; 3],
            flag: (i % 2) as u8,
        };
        records.put(&key, &record).unwrap();
        names.put(&i, &format!("name-{i}")).unwrap();
    }
    for stage in STAGES {
        settle(&[records.column_family(), names.column_family()], stage);
        for i in 0u32..64 {
            let key = "k".repeat(1 + i as usize % 16) + &i.to_string();
            let fields = records
                .get(&key, |r: &Record| {
                    (r.id.get(), r.delta.get(), r.port.get(), r.tag, r.flag)
                })
                .unwrap()
                .unwrap();
            assert_eq!(
                fields,
                (
                    i as u64 * 1_000_003,
                    -(i as i32),
                    i as u16,
                    [i as u8; 3],
                    (i % 2) as u8
                )
            );
            let name = names.get(&i, |s: &str| s.to_owned()).unwrap();
            assert_eq!(name, Some(format!("name-{i}")));
        }
    }
    names.delete(&7).unwrap();
    assert_eq!(names.get_owned(&7).unwrap(), None);
}

#[test]
fn big_endian_keys_iterate_in_numeric_order() {
    let (_dir, db) = open_db(&["signed", "unsigned"]);
    let signed: Table<BigEndian<i64>, LittleEndian<i64>> = Table::new(db.cf("signed").unwrap());
    let unsigned: Table<BigEndian<u32>, Bool> = Table::new(db.cf("unsigned").unwrap());
    let mut ints = vec![
        0i64,
        -1,
        1,
        i64::MIN,
        i64::MAX,
        -256,
        255,
        256,
        -257,
        1 << 40,
        -(1 << 40),
    ];
    for &n in &ints {
        signed.put(&n, &n.wrapping_mul(3)).unwrap();
    }
    let mut uints = vec![0u32, 1, 255, 256, 65_535, 65_536, u32::MAX, 7];
    for &n in &uints {
        unsigned.put(&n, &(n % 2 == 0)).unwrap();
    }
    signed.column_family().flush().unwrap();
    ints.sort();
    uints.sort();

    let seen: Vec<i64> = signed
        .scan(.., |k, v| {
            assert_eq!(v, k.wrapping_mul(3));
            k
        })
        .unwrap()
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(seen, ints);

    // Backward from a seek, on the lending cursor.
    let mut it = signed.iter();
    it.seek_for_prev(&0).unwrap();
    let below: Vec<i64> = it
        .backward(|k, _| k)
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    let expected: Vec<i64> = ints.iter().rev().copied().filter(|&n| n <= 0).collect();
    assert_eq!(below, expected);

    let from_256: Vec<u32> = unsigned
        .scan(&256.., |k, even| {
            assert_eq!(even, k % 2 == 0);
            k
        })
        .unwrap()
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(
        from_256,
        uints.into_iter().filter(|&n| n >= 256).collect::<Vec<_>>()
    );
}

#[test]
fn epoch_millis_read_without_allocation_from_the_pin() {
    let (_dir, db) = open_db(&[]);
    let seen: Table<Utf8, EpochMillis> = Table::new(db.default_cf());
    let at = UNIX_EPOCH + Duration::from_millis(1_754_611_200_042);
    seen.put("user:1", &at).unwrap();
    db.flush().unwrap();
    assert_eq!(
        db.get(b"user:1").unwrap(),
        Some(1_754_611_200_042i64.to_be_bytes().to_vec())
    );
    let read: Option<SystemTime> = seen.get("user:1", |t| t).unwrap();
    assert_eq!(read, Some(at));
}

#[cfg(feature = "serde")]
#[test]
fn json_values_round_trip_through_a_table() {
    use pinrocks::codec::Json;
    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct User {
        name: String,
        langs: Vec<String>,
    }
    let (_dir, db) = open_db(&[]);
    let users: Table<BigEndian<u64>, Json<User>> = Table::new(db.default_cf());
    let ada = User {
        name: "Ada".into(),
        langs: vec!["Analytical Engine".into()],
    };
    users.put(&1, &ada).unwrap();
    assert_eq!(
        db.get(&1u64.to_be_bytes()).unwrap().unwrap(),
        br#"{"name":"Ada","langs":["Analytical Engine"]}"#
    );
    assert_eq!(users.get_owned(&1).unwrap(), Some(ada));
    db.put(&2u64.to_be_bytes(), b"{not json").unwrap();
    let err = users.get_owned(&2).unwrap_err();
    assert!(matches!(&err, Error::Decode { codec: "Json", .. }), "{err}");
}
