//! Blob garbage collection: compactions rewrite the live values of old blob files (by the
//! family's settings or forced per compaction) and every value still reads exactly; ratios
//! RocksDB would take unchecked are refused however they are set.

use crate::blobs::{blob_count, blob_options, check_all, values};
use crate::common::patterned;
use pinrocks::admin::{BlobGarbageCollection, Bottommost, CompactOptions};
use pinrocks::options::Cache;
use pinrocks::Db;

#[test]
fn garbage_collection_rewrites_blob_files_and_every_value_still_reads() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::lru(64 << 20);
    let mut options = blob_options(Some(&cache));
    options
        .enable_blob_garbage_collection(true)
        .blob_garbage_collection_age_cutoff(1.0);
    let db = Db::open(&options, dir.path()).unwrap();
    let cf = db.default_cf();
    let first = values(10);
    for (key, value) in &first {
        db.put(key, value).unwrap();
    }
    db.flush().unwrap();
    let old: Vec<u64> = cf.blob_files().unwrap().iter().map(|f| f.number).collect();
    assert!(!old.is_empty());
    // Half of the values overwritten: their first blobs are garbage once compacted.
    let mut now = first.clone();
    for (key, value) in now.iter_mut().step_by(2) {
        *value = patterned(value.len(), 99);
        db.put(key, value).unwrap();
    }
    db.flush().unwrap();
    check_all(&cf, &now, "before garbage collection");

    let mut force = CompactOptions::new();
    force
        .blob_garbage_collection(BlobGarbageCollection::Force)
        .blob_garbage_collection_age_cutoff(Some(1.0));
    db.compact_range_with(None, None, &force).unwrap();
    let after = cf.blob_files().unwrap();
    assert!(
        after.iter().all(|f| !old.contains(&f.number)),
        "the old files {old:?} were rewritten: {after:?}"
    );
    let live: u64 = after.iter().map(|f| f.blob_count - f.garbage_count).sum();
    assert_eq!(live, blob_count(&now), "{after:?}");
    assert!(after.iter().all(|f| f.garbage_count == 0), "{after:?}");
    for file in &after {
        let path = std::path::Path::new(&file.path).join(file.name.trim_start_matches('/'));
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            file.size,
            "{file:?}"
        );
    }
    check_all(&cf, &now, "after garbage collection");
    drop(cf);
    drop(db);
    let db = Db::open(&options, dir.path()).unwrap();
    check_all(&db.default_cf(), &now, "after garbage collection, reopened");
}

#[test]
fn forced_garbage_collection_of_the_last_level_needs_a_bottommost_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&blob_options(None), dir.path()).unwrap();
    let cf = db.default_cf();
    let mut now = values(70);
    for (key, value) in &now {
        db.put(key, value).unwrap();
    }
    db.flush().unwrap();
    // Half overwritten, and everything compacted into the last level: the first file's
    // overwritten blobs are garbage, and nothing is left above the last level.
    for (key, value) in now.iter_mut().step_by(2) {
        *value = patterned(value.len(), 71);
        db.put(key, value).unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    let before = cf.blob_files().unwrap();
    assert!(before.iter().any(|f| f.garbage_count > 0), "{before:?}");

    let mut force = CompactOptions::new();
    force
        .blob_garbage_collection(BlobGarbageCollection::Force)
        .blob_garbage_collection_age_cutoff(Some(1.0));
    // RocksDB 11.8.1 does not rewrite the last level for it (see BlobGarbageCollection::Force).
    db.compact_range_with(None, None, &force).unwrap();
    assert_eq!(cf.blob_files().unwrap(), before, "nothing was rewritten");

    force.bottommost(Bottommost::Force);
    db.compact_range_with(None, None, &force).unwrap();
    let after = cf.blob_files().unwrap();
    assert!(after.iter().all(|f| f.garbage_count == 0), "{after:?}");
    let old: Vec<u64> = before.iter().map(|f| f.number).collect();
    assert!(after.iter().all(|f| !old.contains(&f.number)), "{after:?}");
    let live: u64 = after.iter().map(|f| f.blob_count).sum();
    assert_eq!(live, blob_count(&now));
    check_all(&cf, &now, "after collecting the last level");
}

/// Whether `err` is pinrocks' refusal of the setting named `setting`.
fn refused(err: &pinrocks::Error, setting: &str) -> bool {
    matches!(err, pinrocks::Error::InvalidInput { .. })
        && err.to_string().contains(setting)
        && refused_text(err)
}

fn refused_text(err: &pinrocks::Error) -> bool {
    err.to_string().contains("outside [0, 1]")
}

#[test]
fn garbage_collection_ratios_outside_zero_to_one_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for bad in [f64::NAN, -0.5, 1.5] {
        let mut options = blob_options(None);
        options.blob_garbage_collection_age_cutoff(bad);
        let err = Db::open(&options, dir.path()).unwrap_err();
        assert!(refused(&err, "age_cutoff"), "{bad}: {err}");
        let mut options = blob_options(None);
        options.blob_garbage_collection_force_threshold(bad);
        let err = Db::open(&options, dir.path()).unwrap_err();
        assert!(refused(&err, "force_threshold"), "{bad}: {err}");
    }
    // By name, from a string, or on the live family: RocksDB would take a NaN. By name
    // and by string the option table refuses it where it is set, naming it.
    let refused_by_name = |result: pinrocks::Result<&mut pinrocks::Options>, name: &str| {
        matches!(result, Err(pinrocks::Error::OptionRejected { ref options, .. })
            if options[0].0 == name)
    };
    for bad in ["nan", "1.5", "-0.1"] {
        for name in [
            "blob_garbage_collection_age_cutoff",
            "blob_garbage_collection_force_threshold",
        ] {
            let mut options = blob_options(None);
            assert!(
                refused_by_name(options.set_by_name(&[(name, bad)]), name),
                "{name}={bad}"
            );
            let mut options = blob_options(None);
            assert!(
                refused_by_name(options.set_from_string(&format!("{name}={bad}")), name),
                "{name}={bad}"
            );
        }
    }
    let db = Db::open(&blob_options(None), dir.path()).unwrap();
    for bad in ["nan", "NaN", "1.5", "-1", "0x1p-1", ""] {
        let err = db
            .set_options(&[
                ("enable_blob_garbage_collection", "true"),
                ("blob_garbage_collection_age_cutoff", bad),
            ])
            .unwrap_err();
        assert!(
            matches!(&err, pinrocks::Error::OptionRejected { options, .. }
                if options == &[("blob_garbage_collection_age_cutoff".to_owned(), bad.to_owned())]),
            "{bad}: {err}"
        );
        assert!(refused_text(&err), "{bad}: {err}");
    }
    db.set_options(&[("blob_garbage_collection_force_threshold", "0.5")])
        .unwrap();
    for bad in [f64::NAN, 1.5, -2.0, -1.0] {
        let mut compact = CompactOptions::new();
        compact.blob_garbage_collection_age_cutoff(Some(bad));
        let err = db.compact_range_with(None, None, &compact).unwrap_err();
        assert!(refused(&err, "age_cutoff"), "{bad}: {err}");
    }
}
