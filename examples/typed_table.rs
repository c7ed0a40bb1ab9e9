//! A typed table: keys and values with codecs, values read in place from the pinned bytes
//! (a fixed-layout record through zerocopy, a string as `&str`), scans over typed ranges.
//!
//! `cargo run --release --example typed_table`

use pinrocks::codec::{BigEndian, Utf8, ZeroCopy};
use pinrocks::{Db, Options, Table};
use zerocopy::byteorder::big_endian::{U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// An account as stored: fixed layout, big-endian fields, no padding, any alignment, so a
/// read borrows it straight from RocksDB's block.
#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Debug, PartialEq)]
#[repr(C)]
struct Account {
    balance_cents: U64,
    transactions: U32,
}

fn main() -> pinrocks::Result<()> {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut options = Options::new();
    options
        .create_if_missing(true)
        .create_missing_column_families(true);
    let db = Db::open_cf(&options, dir.path(), ["accounts", "owners"])?;

    // Keys are big-endian u64: their bytes sort as the numbers do, so ranges mean ranges.
    let accounts: Table<BigEndian<u64>, ZeroCopy<Account>> = Table::new(db.cf("accounts")?);
    let owners: Table<BigEndian<u64>, Utf8> = Table::new(db.cf("owners")?);
    for (id, owner, cents) in [(7, "Ada", 12_500), (12, "Alan", 300), (40, "Grace", 99_000)] {
        let account = Account {
            balance_cents: U64::new(cents),
            transactions: U32::new(1),
        };
        accounts.put(&id, &account)?;
        owners.put(&id, owner)?;
    }

    // A point read: the closure gets `&Account` pointing into the pinned block.
    let balance = accounts.get(&12, |account: &Account| account.balance_cents.get())?;
    assert_eq!(balance, Some(300));
    // Owned, when the value must outlive the read.
    let owner: Option<String> = owners.get_owned(&40)?;
    assert_eq!(owner.as_deref(), Some("Grace"));

    // A typed range: ids 10 and up, each owner's name length computed in place.
    let rich: Vec<(u64, u64)> = accounts
        .scan(&10.., |id, account: &Account| {
            (id, account.balance_cents.get())
        })?
        .collect::<pinrocks::Result<_>>()?;
    assert_eq!(rich, [(12, 300), (40, 99_000)]);
    for (id, cents) in rich {
        let name_len = owners.get(&id, |name: &str| name.len())?.unwrap_or(0);
        println!("account {id}: {cents} cents, owner's name {name_len} bytes");
    }
    Ok(())
}
