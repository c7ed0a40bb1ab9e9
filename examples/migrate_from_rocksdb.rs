//! Moving from the `rocksdb` crate: a database written by `rocksdb` 0.25, opened and read by
//! pinrocks, each `rocksdb` call beside the pinrocks call that replaces it. (The README's
//! table lists them all.)
//!
//! `cargo run --release --example migrate_from_rocksdb`

use pinrocks::{Db, Options, ReadOptions, WriteBatch};

fn main() -> pinrocks::Result<()> {
    let dir = tempfile::tempdir().expect("temporary directory");

    // Written with the `rocksdb` crate, as an existing service would have.
    {
        let mut opts = rocksdb::Options::default();
        opts.create_if_missing(true);
        opts.create_missing_column_families(true);
        let db = rocksdb::DB::open_cf(&opts, dir.path(), ["users"]).expect("rocksdb open");
        let users = db.cf_handle("users").expect("users");
        db.put_cf(&users, b"ada", b"Lovelace").expect("put");
        let mut batch = rocksdb::WriteBatch::default();
        batch.put(b"counter", 1u64.to_be_bytes());
        batch.put_cf(&users, b"alan", b"Turing");
        db.write(batch).expect("write");
    }

    // rocksdb::DB::open_cf(&opts, path, names)   ->  Db::open (every family it has)
    let db = Db::open(&Options::new(), dir.path())?;
    // db.cf_handle("users")                        ->  db.cf("users")? (an error if absent)
    let users = db.cf("users")?;
    // db.get_cf(&cf, k) -> Option<Vec<u8>>         ->  cf.reader().get(k)
    assert_eq!(
        users.reader().get(b"ada")?.as_deref(),
        Some(&b"Lovelace"[..])
    );
    // db.get_pinned_cf(&cf, k) -> DBPinnableSlice  ->  a closure (no handle allocated) or
    //                                                  cf.reader().pin(k) (a guard)
    let len = users.reader().get_pinned(b"alan", |v| v.len())?;
    assert_eq!(len, Some(6));
    // db.put(k, v) / db.put_cf(&cf, k, v)          ->  db.put(k, v) / cf.writer().put(k, v)
    users.writer().put(b"grace", b"Hopper")?;
    // WriteBatch::put_cf(&cf, k, v); db.write(b)   ->  batch.writer().cf(&cf).put(k, v)?; db.write(&batch)
    let mut batch = WriteBatch::new();
    batch.writer().put(b"counter", &2u64.to_be_bytes())?;
    batch.writer().cf(&users).delete(b"alan")?;
    db.write(&batch)?;
    // db.snapshot(); ReadOptions::set_snapshot     ->  the same, owned by the ReadOptions
    let snapshot = db.snapshot();
    let mut at_snapshot = ReadOptions::new();
    at_snapshot.snapshot(&snapshot);
    db.put(b"counter", &3u64.to_be_bytes())?;
    let counter = db
        .reader()
        .options(&at_snapshot)
        .get_pinned(b"counter", |v| u64::from_be_bytes(v.try_into().unwrap()))?;
    assert_eq!(counter, Some(2));
    // db.iterator_cf(&cf, IteratorMode::Start)     ->  cf.reader().scan(.., |k, v| ...)
    let names: Vec<String> = users
        .reader()
        .scan(.., |k, _| String::from_utf8_lossy(k).into_owned())
        .collect::<pinrocks::Result<_>>()?;
    assert_eq!(names, ["ada", "grace"]);
    println!("read the rocksdb crate's database: {names:?}, counter at snapshot {counter:?}");
    Ok(())
}
