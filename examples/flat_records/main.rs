//! FlatBuffers records read in place: orders built with flatc's code (schema in
//! `order.fbs`, the generated `order_generated.rs` beside it), stored through the `Flat`
//! codec, read through their offsets where RocksDB pinned them after the verifier, and
//! unpacked into the object API's owned `OrderT` where a copy is wanted.
//!
//! `cargo run --release --features flatbuffers --example flat_records`

mod order;

use flatbuffers::FlatBufferBuilder;
use order::{Line, LineArgs, Order, OrderArgs, OrderT};
use pinrocks::codec::{BigEndian, Flat};
use pinrocks::{Db, Options, Table};

type Orders<'db> = Table<'db, BigEndian<u64>, Flat<Order<'static>>>;

/// One order as FlatBuffers bytes, built with flatc's builders.
fn build<'b>(
    builder: &'b mut FlatBufferBuilder<'static>,
    id: u64,
    customer: &str,
    note: Option<&str>,
) -> &'b [u8] {
    builder.reset();
    let lines: Vec<_> = (1..=id)
        .map(|i| {
            let args = LineArgs {
                sku: 100 + i as u32,
                quantity: i as u16,
                cents: 250 * i,
            };
            Line::create(builder, &args)
        })
        .collect();
    let lines = builder.create_vector(&lines);
    let customer = builder.create_string(customer);
    let note = note.map(|n| builder.create_string(n));
    let order = Order::create(
        builder,
        &OrderArgs {
            id,
            customer: Some(customer),
            lines: Some(lines),
            note,
        },
    );
    builder.finish(order, None);
    builder.finished_data()
}

fn main() -> pinrocks::Result<()> {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut options = Options::new();
    options.create_if_missing(true);
    let db = Db::open(&options, dir.path())?;
    let orders: Orders<'_> = Table::new(db.default_cf());

    let mut builder = FlatBufferBuilder::new(); // reused: one allocation for every order
    for (id, customer) in (1..).zip(["Ada", "Alan", "Grace", "Edsger"]) {
        let note = (id == 3).then_some("ring twice");
        orders.put(&id, build(&mut builder, id, customer, note))?;
    }
    db.default_cf().flush()?; // read from an SST block, not the memtable

    // One field, read through its offset in the pinned block.
    let who = orders.get(&3, |order| {
        format!("{:?} ({:?})", order.customer(), order.note())
    })?;
    assert_eq!(
        who.as_deref(),
        Some("Some(\"Grace\") (Some(\"ring twice\"))")
    );

    // A scan that sums every order's lines in place.
    let totals: Vec<(u64, u64)> = orders
        .scan(&2..=&4, |id, order| {
            let lines = order.lines().into_iter().flatten();
            (id, lines.map(|l| l.cents() * u64::from(l.quantity())).sum())
        })?
        .collect::<pinrocks::Result<_>>()?;
    assert_eq!(totals, [(2, 1250), (3, 3500), (4, 7500)]);

    // The owned form, unpacked by flatc's object API: a copy, for keeping.
    let owned: OrderT = orders.get_owned(&1)?.expect("order 1");
    assert_eq!((owned.id, owned.customer.as_deref()), (1, Some("Ada")));

    // Bytes that are not an order are refused before they are stored.
    let refused = orders.put(&9, b"not a flatbuffer");
    assert!(matches!(
        refused,
        Err(pinrocks::Error::Encode { codec: "Flat", .. })
    ));
    println!(
        "order 3: {}; totals of 2..=4: {totals:?}; order 1 for Ada",
        who.unwrap()
    );
    Ok(())
}
