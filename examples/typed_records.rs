//! Records read in place: orders with a customer's name, a list of lines and an optional
//! note, stored through serde in postcard's format; a read borrows the name and the note
//! from RocksDB's pinned block, a scan sums them without copying a string, and a stored
//! order goes to another thread still pinned.
//!
//! `cargo run --release --features postcard --example typed_records`

use pinrocks::codec::{BigEndian, Postcard, Record, Stored};
use pinrocks::{Db, Options, Table};
use serde::{Deserialize, Serialize};

/// An order as stored. Its strings borrow from whatever it is read from: on a read, the
/// pinned value; on a write, the caller's own strings.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Order<'a> {
    customer: &'a str,
    lines: Vec<Line>,
    #[serde(borrow)]
    note: Option<&'a str>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Line {
    sku: u32,
    quantity: u16,
    cents: u64,
}

/// `Order<'static>` names the record at every lifetime for the codec.
impl Record for Order<'static> {
    type Of<'a> = Order<'a>;
}

type Orders<'db> = Table<'db, BigEndian<u64>, Postcard<Order<'static>>>;

fn main() -> pinrocks::Result<()> {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut options = Options::new();
    options.create_if_missing(true);
    let db = Db::open(&options, dir.path())?;
    let orders: Orders<'_> = Table::new(db.default_cf());

    let customers = ["Ada", "Alan", "Grace", "Edsger"].map(String::from);
    for (id, customer) in customers.iter().enumerate() {
        let id = id as u64 + 1;
        let lines = (1..=id)
            .map(|i| Line {
                sku: 100 + i as u32,
                quantity: i as u16,
                cents: 250 * i,
            })
            .collect();
        let note = (id == 3).then_some("ring twice");
        orders.put(
            &id,
            &Order {
                customer,
                lines,
                note,
            },
        )?;
    }
    db.default_cf().flush()?; // read from an SST block, not the memtable

    // One field, read where RocksDB pinned it: `customer` points into the block.
    let who = orders.get(&3, |order| format!("{} ({:?})", order.customer, order.note))?;
    assert_eq!(who.as_deref(), Some("Grace (Some(\"ring twice\"))"));

    // A scan that reads every order in place and copies no string.
    let totals: Vec<(u64, usize, u64)> = orders
        .scan(&2..=&4, |id, order| {
            let cents = order
                .lines
                .iter()
                .map(|l| l.cents * u64::from(l.quantity))
                .sum();
            (id, order.customer.len(), cents)
        })?
        .collect::<pinrocks::Result<_>>()?;
    assert_eq!(totals, [(2, 4, 1250), (3, 5, 3500), (4, 6, 7500)]);

    // An order kept pinned past the read, the table and the database's handle, sent to
    // another thread: no copy; each `get` reads the record in place again.
    let stored: Stored<Postcard<Order<'static>>> = orders.get_stored(&1)?.expect("order 1");
    drop(orders);
    drop(db);
    let customer = std::thread::spawn(move || stored.get().customer.to_owned())
        .join()
        .expect("reader thread");
    assert_eq!(customer, "Ada");
    println!(
        "order 3: {}; totals of 2..=4: {totals:?}; order 1 for {customer}",
        who.unwrap()
    );
    Ok(())
}
