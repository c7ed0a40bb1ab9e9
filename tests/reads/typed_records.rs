//! Records that borrow, through the postcard codec: fields read in place from the pin at
//! every stage of the tree, through the database, a transaction and an indexed batch, in
//! scans; the stored form that keeps the pin; what a wrong value is; and the bytes plain
//! postcard code and the `rocksdb` crate write and read, both ways.
#![cfg(feature = "postcard")]

use std::borrow::Cow;

use crate::common::{open_db, settle, STAGES};
use pinrocks::codec::{BigEndian, Codec, DecodeError, Postcard, Record, Stored, Utf8};
use pinrocks::{Error, Table};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Order<'a> {
    id: u64,
    customer: &'a str,
    #[serde(borrow)]
    note: Option<&'a str>,
    #[serde(borrow)]
    city: Cow<'a, str>,
    tag: &'a [u8],
    lines: Vec<(u32, u16)>,
}

impl Record for Order<'static> {
    type Of<'a> = Order<'a>;
}

type Orders<'db> = Table<'db, BigEndian<u64>, Postcard<Order<'static>>>;

fn order(id: u64, customer: &str) -> Order<'_> {
    Order {
        id,
        customer,
        note: id.is_multiple_of(2).then_some("leave at the door"),
        city: Cow::Borrowed("Lyon"),
        tag: b"\x00\xffrecord",
        lines: (0..id as u32 % 5)
            .map(|i| (1000 + i, i as u16 * 3))
            .collect(),
    }
}

/// `inner` lies within `outer`'s bytes.
fn within(inner: &[u8], outer: &[u8]) -> bool {
    let range = outer.as_ptr_range();
    range.contains(&inner.as_ptr()) && inner.as_ptr_range().end <= range.end
}

#[test]
fn a_pinned_record_is_read_in_place_until_its_guard_drops() {
    for stage in STAGES {
        let (_dir, db) = open_db(&[]);
        let orders: Orders<'_> = Table::new(db.default_cf());
        let customers: Vec<String> = (0..8).map(|i| format!("customer {i}")).collect();
        for (id, customer) in customers.iter().enumerate() {
            orders
                .put(&(id as u64), &order(id as u64, customer))
                .unwrap();
        }
        settle(&[&db.default_cf()], stage);
        let pins: Vec<_> = (0..8u64)
            .map(|id| orders.pin(&id).unwrap().expect("present"))
            .collect();
        for (id, pinned) in pins.iter().enumerate() {
            let read = pinned.get();
            assert_eq!(read, order(id as u64, &customers[id]), "{stage:?}");
            // The name is the guard's own pinned bytes: nothing was copied for the guard.
            assert!(
                within(read.customer.as_bytes(), pinned.bytes()),
                "{stage:?}"
            );
            assert_eq!(pinned.get(), read, "read again, the same");
        }
        assert!(orders.pin(&99).unwrap().is_none());
        db.put(&100u64.to_be_bytes(), b"\xff\xff\xff").unwrap();
        assert!(matches!(
            orders.pin(&100),
            Err(Error::Decode {
                codec: "Postcard",
                ..
            })
        ));
    }
}

#[test]
fn a_record_s_fields_are_read_in_place_at_every_stage() {
    for stage in STAGES {
        let (_dir, db) = open_db(&[]);
        let orders: Orders<'_> = Table::new(db.default_cf());
        let customers: Vec<String> = (0..20).map(|i| format!("customer {i}")).collect();
        for (id, customer) in customers.iter().enumerate() {
            orders
                .put(&(id as u64), &order(id as u64, customer))
                .unwrap();
        }
        settle(&[&db.default_cf()], stage);
        for (id, customer) in customers.iter().enumerate() {
            let id = id as u64;
            let expected = order(id, customer);
            let read = orders.get(&id, |o: Order<'_>| assert_eq!(o, expected, "{stage:?}"));
            assert_eq!(read.unwrap(), Some(()));
            let key = id.to_be_bytes();
            db.get_pinned(&key, |bytes| {
                let o = Postcard::<Order<'static>>::decode(bytes).unwrap();
                assert!(within(o.customer.as_bytes(), bytes), "customer copied");
                assert!(within(o.tag, bytes), "tag copied");
                match o.note {
                    Some(note) => assert!(within(note.as_bytes(), bytes), "note copied"),
                    None => assert_eq!(id % 2, 1),
                }
                match o.city {
                    Cow::Borrowed(city) => assert!(within(city.as_bytes(), bytes)),
                    Cow::Owned(_) => panic!("city copied"),
                }
            })
            .unwrap()
            .unwrap();
        }
    }
}

#[test]
fn records_read_through_transactions_batches_and_scans() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = pinrocks::Options::new();
    options.create_if_missing(true);
    let txn_options = pinrocks::options::TransactionDbOptions::new();
    let db = pinrocks::Db::open_transaction_db(&options, &txn_options, dir.path(), []).unwrap();
    let orders: Orders<'_> = Table::new(db.default_cf());
    orders.put(&1, &order(1, "ada")).unwrap();
    orders.put(&2, &order(2, "alan")).unwrap();

    let mut txn = db.begin().unwrap();
    orders
        .write(txn.writer())
        .put(&3, &order(3, "grace"))
        .unwrap();
    let in_txn: Vec<(u64, String)> = orders
        .read(txn.reader())
        .scan(.., |id, o: Order<'_>| (id, o.customer.to_owned()))
        .unwrap()
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(
        in_txn,
        [
            (1, "ada".to_owned()),
            (2, "alan".to_owned()),
            (3, "grace".to_owned())
        ]
    );
    txn.rollback().unwrap();

    let mut batch = db.indexed_batch().unwrap();
    orders
        .write(batch.writer())
        .put(&2, &order(2, "edsger"))
        .unwrap();
    let expected = order(2, "edsger");
    let read = orders
        .read(batch.reader())
        .get(&2, |o: Order<'_>| assert_eq!(o, expected));
    assert_eq!(read.unwrap(), Some(()));
    let outside = orders.get(&2, |o: Order<'_>| o.customer.len()).unwrap();
    assert_eq!(outside, Some(4), "the batch is not written");

    let backwards: Vec<u64> = orders
        .scan_rev(.., |_, o: Order<'_>| o.id)
        .unwrap()
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(backwards, [2, 1]);
}

#[test]
fn a_stored_record_keeps_its_pin_past_the_database_and_the_thread() {
    let (_dir, db) = open_db(&[]);
    let orders: Orders<'_> = Table::new(db.default_cf());
    orders.put(&9, &order(9, "barbara")).unwrap();
    db.default_cf().flush().unwrap();
    let stored: Stored<Postcard<Order<'static>>> = orders.get_stored(&9).unwrap().unwrap();
    let owned = orders.get_owned(&9).unwrap().unwrap();
    assert_eq!(
        orders.get_stored(&10).unwrap().map(|s| s.bytes().len()),
        None
    );
    drop(orders);
    drop(db);
    let read = std::thread::spawn(move || {
        let o = stored.get();
        assert!(within(o.customer.as_bytes(), stored.bytes()));
        o.clone().lines
    })
    .join()
    .unwrap();
    assert_eq!(read, order(9, "barbara").lines);
    assert_eq!(owned.get(), order(9, "barbara"));
}

#[test]
fn a_value_that_is_not_one_record_is_a_decode_error_naming_the_key() {
    let (_dir, db) = open_db(&[]);
    let orders: Orders<'_> = Table::new(db.default_cf());
    let good = postcard::to_allocvec(&order(4, "ada")).unwrap();
    let cases = [
        ([good.as_slice(), b"!"].concat(), "1 bytes after the record"),
        (
            good[..good.len() - 1].to_vec(),
            "Hit the end of buffer, expected more data",
        ),
        (
            b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01".to_vec(),
            "varint that didn't terminate",
        ),
    ];
    for (key, (bytes, message)) in cases.iter().enumerate() {
        let key = key as u64;
        db.put(&key.to_be_bytes(), bytes).unwrap();
        for result in [
            orders.get(&key, |o: Order<'_>| o.id).map(drop),
            orders.get_stored(&key).map(drop),
            orders.get_owned(&key).map(drop),
        ] {
            match result {
                Err(Error::Decode {
                    codec: "Postcard",
                    key: k,
                    source: DecodeError::Other(said),
                }) => {
                    assert_eq!(k, key.to_be_bytes());
                    assert!(said.contains(message), "{said}");
                }
                other => panic!("{bytes:?}: {other:?}"),
            }
        }
    }
}

#[test]
fn records_written_by_plain_postcard_into_the_rocksdb_crate_read_back_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut peer_options = rocksdb::Options::default();
    peer_options.create_if_missing(true);
    let ours = order(6, "written by pinrocks");
    {
        let peer = rocksdb::DB::open(&peer_options, dir.path()).unwrap();
        let theirs = postcard::to_allocvec(&order(5, "written by the peer")).unwrap();
        peer.put(5u64.to_be_bytes(), theirs).unwrap();
    }
    {
        let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path()).unwrap();
        let orders: Orders<'_> = Table::new(db.default_cf());
        let expected = order(5, "written by the peer");
        let read = orders.get(&5, |o: Order<'_>| assert_eq!(o, expected));
        assert_eq!(read.unwrap(), Some(()));
        orders.put(&6, &ours).unwrap();
    }
    let peer = rocksdb::DB::open(&peer_options, dir.path()).unwrap();
    let bytes = peer.get(6u64.to_be_bytes()).unwrap().unwrap();
    assert_eq!(
        bytes,
        postcard::to_allocvec(&ours).unwrap(),
        "byte for byte"
    );
    assert_eq!(postcard::from_bytes::<Order<'_>>(&bytes).unwrap(), ours);
}

#[test]
fn every_codec_has_a_stored_form_over_the_pinned_bytes() {
    let (_dir, db) = open_db(&[]);
    let names: Table<'_, BigEndian<u32>, Utf8> = Table::new(db.default_cf());
    names.put(&1, "Ada").unwrap();
    let stored = names.get_stored(&1).unwrap().unwrap();
    assert_eq!(
        (stored.get(), stored.bytes().as_ref()),
        ("Ada", &b"Ada"[..])
    );
    let again = stored.clone();
    assert_eq!(
        again.bytes().as_ptr(),
        stored.bytes().as_ptr(),
        "a clone shares"
    );
    assert_eq!(format!("{again:?}"), "Stored { codec: \"Utf8\", len: 3 }");
    db.put(&2u32.to_be_bytes(), b"\xff").unwrap();
    assert!(matches!(
        names.get_stored(&2),
        Err(Error::Decode {
            codec: "Utf8",
            source: DecodeError::Utf8(_),
            ..
        })
    ));
}

#[test]
fn a_typed_multi_get_reads_records_in_place_in_key_order() {
    let (_dir, db) = open_db(&[]);
    let orders: Orders<'_> = Table::new(db.default_cf());
    for id in [1u64, 3, 4] {
        orders.put(&id, &order(id, "multi")).unwrap();
    }
    db.default_cf().flush().unwrap();
    let mut seen = Vec::new();
    orders
        .multi_get([&4, &2, &1, &3], |i, o: Option<Order<'_>>| {
            seen.push((i, o.map(|o| (o.id, o == order(o.id, "multi")))))
        })
        .unwrap();
    assert_eq!(
        seen,
        [
            (0, Some((4, true))),
            (1, None),
            (2, Some((1, true))),
            (3, Some((3, true)))
        ]
    );

    // A value that does not decode ends the batch with its error, naming its key.
    db.put(&2u64.to_be_bytes(), b"\x01").unwrap();
    let mut seen = Vec::new();
    let err = orders
        .multi_get([&1, &2, &3], |i, o: Option<Order<'_>>| {
            seen.push((i, o.is_some()))
        })
        .unwrap_err();
    assert_eq!(seen, [(0, true)]);
    match err {
        Error::Decode {
            codec: "Postcard",
            key,
            ..
        } => assert_eq!(key, 2u64.to_be_bytes()),
        other => panic!("{other:?}"),
    }
}
