//! Backups of a live database and a restore: two backups taken while the database is
//! open (the second shares the first one's unchanged files), verified, the older one
//! purged, then the latest restored into a new directory and opened there.
//!
//! `cargo run --release --example backup_restore`

use pinrocks::admin::BackupEngine;
use pinrocks::{Db, Options};

fn main() -> pinrocks::Result<()> {
    let dirs = tempfile::tempdir().expect("temporary directory");
    let (live, backups, restored) = (
        dirs.path().join("live"),
        dirs.path().join("backups"),
        dirs.path().join("restored"),
    );
    let mut options = Options::new();
    options.create_if_missing(true);
    let db = Db::open(&options, &live)?;
    let engine = BackupEngine::open(&options, &backups)?;

    db.put(b"order:1", b"paid")?;
    let first = engine.create_backup(&db, true)?; // flush first: the backup holds no WAL
    db.put(b"order:2", b"shipped")?;
    db.delete(b"order:1")?;
    let second = engine.create_backup(&db, true)?;
    for backup in engine.backups()? {
        engine.verify(backup.id)?; // every file there, with its size and checksum
        println!(
            "backup {}: {} bytes, {} files",
            backup.id, backup.size, backup.files
        );
    }
    engine.purge_old_backups(1)?;
    assert_eq!(
        engine.backups()?.iter().map(|b| b.id).collect::<Vec<_>>(),
        [second]
    );
    assert!(first < second);

    engine.restore_latest(&restored)?;
    let copy = Db::open(&options, &restored)?;
    assert_eq!(copy.get(b"order:1")?, None);
    assert_eq!(copy.get(b"order:2")?.as_deref(), Some(&b"shipped"[..]));
    println!("restored backup {second} into {}", restored.display());
    Ok(())
}
