//! A transaction retry loop: four threads move money between accounts in an optimistic
//! transaction database; a conflict (another thread committed a key this one read for
//! update) fails the commit with an error whose `is_retryable()` says "run it again", and the loop does.
//! The total is the same at the end, whatever interleaving happened.
//!
//! `cargo run --release --example transaction_retry`

use pinrocks::codec::BigEndian;
use pinrocks::write::Lock;
use pinrocks::{Db, Options};

const ACCOUNTS: u64 = 8;

fn balance(value: Option<Vec<u8>>) -> u64 {
    u64::from_be_bytes(
        value.expect("every account exists")[..]
            .try_into()
            .expect("8 bytes"),
    )
}

/// Moves `amount` from one account to another, all or nothing; retried on conflict.
fn transfer(db: &Db, from: u64, to: u64, amount: u64) -> pinrocks::Result<u32> {
    let mut attempts = 0;
    loop {
        attempts += 1;
        let mut txn = db.begin()?;
        let (a, b) = (from.to_be_bytes(), to.to_be_bytes());
        // Read for update: the transaction tracks the keys from this read on, so a commit
        // by another thread in between fails ours. A plain `reader()` read is not tracked
        // (RocksDB checks only what was written, from the write on): the lost update this
        // example's total would show.
        let from_balance = balance(txn.reader_for_update(Lock::Exclusive).get(&a)?);
        let to_balance = balance(txn.reader_for_update(Lock::Exclusive).get(&b)?);
        if from_balance < amount {
            txn.rollback()?;
            return Ok(attempts);
        }
        txn.writer()
            .put(&a, &(from_balance - amount).to_be_bytes())?;
        txn.writer().put(&b, &(to_balance + amount).to_be_bytes())?;
        match txn.commit() {
            Ok(()) => return Ok(attempts),
            Err(e) if e.is_retryable() => continue, // someone else won: read again
            Err(e) => return Err(e),
        }
    }
}

fn main() -> pinrocks::Result<()> {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut options = Options::new();
    options.create_if_missing(true);
    let db = Db::open_optimistic_transaction_db(&options, dir.path(), [])?;
    for account in 0..ACCOUNTS {
        db.put(&account.to_be_bytes(), &1_000u64.to_be_bytes())?;
    }
    let retries: u32 = std::thread::scope(|s| {
        let workers: Vec<_> = (0..4u64)
            .map(|worker| {
                let db = &db;
                s.spawn(move || -> pinrocks::Result<u32> {
                    let mut retries = 0;
                    for i in 0..500u64 {
                        let from = (worker + i) % ACCOUNTS;
                        let to = (worker * 3 + i * 5 + 1) % ACCOUNTS;
                        if from != to {
                            retries += transfer(db, from, to, 1 + i % 7)? - 1;
                        }
                    }
                    Ok(retries)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("no panic"))
            .sum::<pinrocks::Result<u32>>()
    })?;
    let total: u64 = (0..ACCOUNTS)
        .map(|account| db.get(&account.to_be_bytes()).map(balance))
        .sum::<pinrocks::Result<u64>>()?;
    assert_eq!(total, ACCOUNTS * 1_000, "money is neither made nor lost");
    // The typed view reads the same bytes as numbers.
    let first = db
        .reader()
        .typed::<BigEndian<u64>, BigEndian<u64>>()
        .get_owned(&0)?;
    println!("total {total} across {ACCOUNTS} accounts (account 0: {first:?}); {retries} commits retried");
    Ok(())
}
