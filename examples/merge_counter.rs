//! Counters without read-modify-write: each increment is a merge operand (a write, no
//! read), RocksDB folds them when a read, a flush or a compaction needs the value. Four
//! threads count page views into a few keys; the counts are exact.
//!
//! `cargo run --release --example merge_counter`

use pinrocks::callbacks::MergeOperator;
use pinrocks::codec::{LittleEndian, Utf8};
use pinrocks::{Db, Options};

fn main() -> pinrocks::Result<()> {
    // `fold` decodes the existing value and each operand with the codec: a u64 sum here.
    let add = MergeOperator::fold::<LittleEndian<u64>>("add", |sum, n| sum + n);
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut options = Options::new();
    options.create_if_missing(true).merge_operator(&add);
    let db = Db::open(&options, dir.path())?;

    let pages = ["/", "/about", "/pricing"];
    std::thread::scope(|s| {
        let counters: Vec<_> = (0..4u64)
            .map(|thread| {
                let db = &db;
                s.spawn(move || -> pinrocks::Result<()> {
                    for view in 0..10_000u64 {
                        let page = pages[((thread + view) % 3) as usize];
                        db.merge(page.as_bytes(), &1u64.to_le_bytes())?;
                    }
                    Ok(())
                })
            })
            .collect();
        counters
            .into_iter()
            .try_for_each(|c| c.join().expect("no panic"))
    })?;
    db.flush()?; // some operands folded into files, the rest still in the memtable
    db.merge(b"/", &5u64.to_le_bytes())?;

    let counts = db.reader().typed::<Utf8, LittleEndian<u64>>();
    let mut total = 0;
    for page in pages {
        let views = counts.get_owned(page)?.expect("counted");
        println!("{page}: {views}");
        total += views;
    }
    assert_eq!(total, 4 * 10_000 + 5);
    Ok(())
}
