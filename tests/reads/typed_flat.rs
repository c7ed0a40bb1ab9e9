//! FlatBuffers tables through the `Flat` codec: fields read through their offsets in the
//! pinned bytes at every stage, through a transaction, a multi-get and a stored value; the
//! verifier refusing what is not a table on the way in and on the way out; and the bytes
//! plain FlatBuffers code and the `rocksdb` crate write and read, both ways.
#![cfg(feature = "flatbuffers")]

#[path = "../../examples/flat_records/order.rs"]
mod order;

use crate::common::{flips_read_alike, open_db, settle, STAGES};
use flatbuffers::FlatBufferBuilder;
use order::{Line, LineArgs, Order, OrderArgs};
use pinrocks::codec::{BigEndian, Codec, DecodeError, Flat, Stored};
use pinrocks::{Error, Table};

type Orders<'db> = Table<'db, BigEndian<u64>, Flat<Order<'static>>>;

/// Order `id` as FlatBuffers bytes: `id % 5` lines, a note on even ids.
fn order_bytes(id: u64, customer: &str) -> Vec<u8> {
    let mut builder = FlatBufferBuilder::new();
    let lines: Vec<_> = (0..id % 5)
        .map(|i| {
            let args = LineArgs {
                sku: 1000 + i as u32,
                quantity: i as u16 * 3,
                cents: 99 * i,
            };
            Line::create(&mut builder, &args)
        })
        .collect();
    let lines = builder.create_vector(&lines);
    let customer = builder.create_string(customer);
    let note = id
        .is_multiple_of(2)
        .then(|| builder.create_string("leave at the door"));
    let args = OrderArgs {
        id,
        customer: Some(customer),
        lines: Some(lines),
        note,
    };
    let order = Order::create(&mut builder, &args);
    builder.finish(order, None);
    builder.finished_data().to_vec()
}

/// Whether `order` says what `order_bytes(id, customer)` wrote, field by field.
fn is_order(order: &Order<'_>, id: u64, customer: &str) -> bool {
    let lines: Vec<(u32, u16, u64)> = order
        .lines()
        .into_iter()
        .flatten()
        .map(|l| (l.sku(), l.quantity(), l.cents()))
        .collect();
    let expected: Vec<(u32, u16, u64)> = (0..id % 5)
        .map(|i| (1000 + i as u32, i as u16 * 3, 99 * i))
        .collect();
    order.id() == id
        && order.customer() == Some(customer)
        && lines == expected
        && order.note() == id.is_multiple_of(2).then_some("leave at the door")
}

fn within(inner: &[u8], outer: &[u8]) -> bool {
    let range = outer.as_ptr_range();
    range.contains(&inner.as_ptr()) && inner.as_ptr_range().end <= range.end
}

#[test]
fn a_table_s_fields_are_read_through_offsets_in_the_pin_at_every_stage() {
    for stage in STAGES {
        let (_dir, db) = open_db(&[]);
        let orders: Orders<'_> = Table::new(db.default_cf());
        let customers: Vec<String> = (0..20).map(|i| format!("customer {i}")).collect();
        for (id, customer) in (0..).zip(&customers) {
            orders.put(&id, &order_bytes(id, customer)).unwrap();
        }
        settle(&[&db.default_cf()], stage);
        for (id, customer) in (0..).zip(&customers) {
            let read = orders.get(&id, |o| is_order(&o, id, customer)).unwrap();
            assert_eq!(read, Some(true), "{stage:?} {id}");
            db.get_pinned(&id.to_be_bytes(), |bytes| {
                let o = Flat::<Order<'static>>::decode(bytes).unwrap();
                assert!(
                    within(o.customer().unwrap().as_bytes(), bytes),
                    "customer copied"
                );
            })
            .unwrap()
            .unwrap();
        }
        let owned = orders.get_owned(&7).unwrap().unwrap();
        assert_eq!(
            (owned.id, owned.customer.as_deref()),
            (7, Some("customer 7"))
        );
        assert_eq!(owned.lines.map(|l| l.len()), Some(2));
    }
}

#[test]
fn tables_read_through_a_transaction_a_multi_get_and_a_stored_value() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = pinrocks::Options::new();
    options.create_if_missing(true);
    let db = pinrocks::Db::open_optimistic_transaction_db(&options, dir.path(), []).unwrap();
    let orders: Orders<'_> = Table::new(db.default_cf());
    orders.put(&1, &order_bytes(1, "ada")).unwrap();
    let mut txn = db.begin().unwrap();
    orders
        .write(txn.writer())
        .put(&2, &order_bytes(2, "alan"))
        .unwrap();
    let mut seen = Vec::new();
    orders
        .read(txn.reader())
        .multi_get([&2, &3, &1], |i, o| seen.push((i, o.map(|o| o.id()))))
        .unwrap();
    assert_eq!(seen, [(0, Some(2)), (1, None), (2, Some(1))]);
    txn.commit().unwrap();

    let stored = orders.get_stored(&2).unwrap().unwrap();
    drop(orders);
    drop(db);
    let read = std::thread::spawn(move || is_order(&stored.get(), 2, "alan"));
    assert!(read.join().unwrap());
}

/// Every field of an order, as plain values.
type Fields = (u64, Option<String>, Vec<(u32, u16, u64)>, Option<String>);

fn fields(order: Order<'_>) -> Fields {
    let lines = order.lines().into_iter().flatten();
    (
        order.id(),
        order.customer().map(str::to_string),
        lines.map(|l| (l.sku(), l.quantity(), l.cents())).collect(),
        order.note().map(str::to_string),
    )
}

#[test]
fn a_stored_table_is_verified_once_when_made_and_corrupted_ones_never_are() {
    // `Stored::get` reads without verifying again: only bytes `Stored::new` verified may
    // get there. Every flip of every byte: `new` accepts exactly what the verifier
    // accepts, and `get` then reads what a verified read reads.
    let good = order_bytes(4, "grace");
    flips_read_alike(
        &good,
        &[0],
        |b| Flat::<Order<'static>>::decode(b).map(fields),
        |b| Stored::<Flat<Order<'static>>>::new(b).map(|s| fields(s.get())),
    );
}

#[test]
fn a_pinned_table_is_verified_once_and_read_where_rocksdb_holds_it() {
    for stage in STAGES {
        let (_dir, db) = open_db(&[]);
        let orders: Orders<'_> = Table::new(db.default_cf());
        for id in 0..6u64 {
            orders.put(&id, &order_bytes(id, "ada")).unwrap();
        }
        settle(&[&db.default_cf()], stage);
        for id in 0..6u64 {
            let pinned = orders.pin(&id).unwrap().expect("present");
            assert!(is_order(&pinned.get(), id, "ada"), "{stage:?} {id}");
            assert_eq!(fields(pinned.get()), fields(pinned.get()));
            assert_eq!(pinned.bytes(), &order_bytes(id, "ada")[..]);
        }
        assert!(orders.pin(&9).unwrap().is_none());
        db.put(&10u64.to_be_bytes(), b"\x04\x00\x00\x00").unwrap();
        assert!(matches!(
            orders.pin(&10),
            Err(Error::Decode { codec: "Flat", .. })
        ));
    }
}

#[test]
fn the_verifier_refuses_what_is_not_an_order_both_ways() {
    let (_dir, db) = open_db(&[]);
    let orders: Orders<'_> = Table::new(db.default_cf());
    match orders.put(&1, b"\x04\x00\x00\x00") {
        Err(Error::Encode { codec: "Flat", .. }) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(
        db.get(&1u64.to_be_bytes()).unwrap(),
        None,
        "nothing was stored"
    );

    let good = order_bytes(4, "grace");
    let mut refused = 0;
    for i in 0..good.len() {
        for flip in [0x01u8, 0x80, 0xFF] {
            let mut bad = good.clone();
            bad[i] ^= flip;
            db.put(&2u64.to_be_bytes(), &bad).unwrap();
            // A value (a flipped byte in a number or a letter) or an error: never a panic
            // or a read out of bounds (the reads binary runs under memcheck).
            match orders.get(&2, |o| (o.id(), o.lines().map(|l| l.len()))) {
                Ok(Some(_)) => {}
                Err(Error::Decode {
                    codec: "Flat",
                    source: DecodeError::Other(_),
                    ..
                }) => refused += 1,
                other => panic!("byte {i} ^ {flip:#x}: {other:?}"),
            }
        }
    }
    let flips = 3 * good.len();
    assert!(0 < refused && refused < flips, "{refused} of {flips}");
}

#[test]
fn tables_written_by_plain_flatbuffers_into_the_rocksdb_crate_read_back_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut peer_options = rocksdb::Options::default();
    peer_options.create_if_missing(true);
    {
        let peer = rocksdb::DB::open(&peer_options, dir.path()).unwrap();
        peer.put(5u64.to_be_bytes(), order_bytes(5, "peer"))
            .unwrap();
    }
    {
        let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path()).unwrap();
        let orders: Orders<'_> = Table::new(db.default_cf());
        assert_eq!(
            orders.get(&5, |o| is_order(&o, 5, "peer")).unwrap(),
            Some(true)
        );
        orders.put(&6, &order_bytes(6, "pinrocks")).unwrap();
    }
    let peer = rocksdb::DB::open(&peer_options, dir.path()).unwrap();
    let bytes = peer.get(6u64.to_be_bytes()).unwrap().unwrap();
    assert_eq!(bytes, order_bytes(6, "pinrocks"), "byte for byte");
    let order = flatbuffers::root::<Order<'_>>(&bytes).unwrap();
    assert!(is_order(&order, 6, "pinrocks"));
}
