//! RocksDB's events through `EventListener`, in the number and order RocksDB produces them:
//! flushes with their files, a manual compaction with its inputs, a stall and its end, a
//! background error and the recovery from it; memtables sealed, table files created and
//! deleted, an ingest, column family handles deleted; panicking listeners leave the
//! database working, and a listener's call into its database is refused.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use crate::common::{create_options, patterned};
use pinrocks::admin::{IngestOptions, SstFileWriter};
use pinrocks::callbacks::{
    BackgroundErrorInfo, CompactionInfo, EventListener, Events, FlushInfo, IngestionInfo,
    MemtableInfo, StallCondition, StallInfo, TableFileInfo, TableFileReason,
};
use pinrocks::options::SstFileManager;
use pinrocks::{Db, Error, ErrorKind};

/// A completed compaction: its input files, how many it wrote, its output level, its reason.
type Compacted = (BTreeSet<PathBuf>, usize, i32, String);

/// Every event, as a line, and the files each flush wrote.
#[derive(Default)]
struct Recorder {
    events: Mutex<Vec<String>>,
    flushed: Mutex<Vec<PathBuf>>,
    compacted: Mutex<Vec<Compacted>>,
    stalls: Mutex<Vec<(String, StallCondition, StallCondition)>>,
    errors: Mutex<Vec<(&'static str, Option<ErrorKind>)>>,
    recovered: Mutex<Vec<Option<ErrorKind>>>,
}

impl EventListener for Recorder {
    fn on_flush_begin(&self, info: &FlushInfo<'_>) {
        let line = format!("flush begin {} {}", info.cf_name, info.job_id);
        self.events.lock().unwrap().push(line);
    }
    fn on_flush_completed(&self, info: &FlushInfo<'_>) {
        let line = format!(
            "flush completed {} {} {}",
            info.cf_name, info.job_id, info.reason
        );
        self.events.lock().unwrap().push(line);
        self.flushed.lock().unwrap().push(info.file_path.to_owned());
    }
    fn on_compaction_begin(&self, info: &CompactionInfo<'_>) {
        let line = format!("compaction begin {} {}", info.cf_name, info.job_id);
        self.events.lock().unwrap().push(line);
    }
    fn on_compaction_completed(&self, info: &CompactionInfo<'_>) {
        assert!(info.status.is_ok(), "{info:?}");
        let line = format!("compaction completed {} {}", info.cf_name, info.job_id);
        self.events.lock().unwrap().push(line);
        self.compacted.lock().unwrap().push((
            info.input_files().map(|p| p.to_owned()).collect(),
            info.output_files().count(),
            info.output_level,
            info.reason.to_owned(),
        ));
    }
    fn on_stall_conditions_changed(&self, info: &StallInfo<'_>) {
        let stall = (info.cf_name.to_owned(), info.previous, info.current);
        self.stalls.lock().unwrap().push(stall);
    }
    fn on_background_error(&self, info: &BackgroundErrorInfo<'_>) {
        self.errors
            .lock()
            .unwrap()
            .push((info.reason, info.error.kind()));
    }
    fn on_error_recovery_end(&self, error: Option<&Error>) {
        self.recovered
            .lock()
            .unwrap()
            .push(error.and_then(Error::kind));
    }
}

/// Four flushes and one manual compaction: exactly four flush pairs, begin before completed
/// for each job, the files they wrote, and one compaction that read exactly those files.
#[test]
fn flushes_and_a_compaction_arrive_in_number_and_order_with_their_files() {
    let recorder = Arc::new(Recorder::default());
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options
        .disable_auto_compactions(true)
        .add_event_listener(recorder.clone());
    let db = Db::open(&options, dir.path()).unwrap();
    // Each file holds the same two keys: the compaction merges them (not a move).
    for i in 0..4u8 {
        db.put(b"a", &patterned(1000, i)).unwrap();
        db.put(b"z", &patterned(1000, i)).unwrap();
        db.flush().unwrap();
    }
    let flushed: BTreeSet<PathBuf> = recorder.flushed.lock().unwrap().iter().cloned().collect();
    assert!(flushed.iter().all(|f| f.exists()), "{flushed:?}");
    db.compact_range(None, None).unwrap();
    let events = recorder.events.lock().unwrap().clone();
    assert_eq!(events.len(), 10, "{events:?}");
    for pair in events[..8].chunks(2) {
        let begin = pair[0].strip_prefix("flush begin default ").unwrap();
        let completed = pair[1].strip_prefix("flush completed default ").unwrap();
        assert_eq!(completed, format!("{begin} Manual Flush"), "{events:?}");
    }
    assert!(
        events[8].starts_with("compaction begin default "),
        "{events:?}"
    );
    assert_eq!(
        events[9].replace("completed", "begin"),
        events[8],
        "one job, begun then completed"
    );
    assert_eq!(flushed.len(), 4);
    let compacted = recorder.compacted.lock().unwrap();
    assert_eq!(compacted.len(), 1);
    let (inputs, outputs, level, reason) = &compacted[0];
    assert_eq!(inputs, &flushed, "the compaction read the flushed files");
    assert_eq!(*outputs, 1);
    // Level sizes from the last level up (RocksDB's default): the bottom level, 6.
    assert_eq!(*level, 6);
    assert_eq!(reason, "ManualCompaction");
    assert!(recorder.stalls.lock().unwrap().is_empty());
}

/// Records every event it overrides, but wants flush completions only.
struct FlushesOnly(Recorder);

impl EventListener for FlushesOnly {
    fn events(&self) -> Events {
        Events::FLUSH_COMPLETED
    }
    fn on_flush_begin(&self, info: &FlushInfo<'_>) {
        self.0.on_flush_begin(info)
    }
    fn on_flush_completed(&self, info: &FlushInfo<'_>) {
        self.0.on_flush_completed(info)
    }
    fn on_compaction_begin(&self, info: &CompactionInfo<'_>) {
        self.0.on_compaction_begin(info)
    }
    fn on_compaction_completed(&self, info: &CompactionInfo<'_>) {
        self.0.on_compaction_completed(info)
    }
}

/// A listener is called for the events it wants only, overridden or not; one beside it
/// wanting all still gets all.
#[test]
fn a_listener_gets_the_events_it_wants_only() {
    let only = Arc::new(FlushesOnly(Recorder::default()));
    let all = Arc::new(Recorder::default());
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options
        .disable_auto_compactions(true)
        .add_event_listener(only.clone())
        .add_event_listener(all.clone());
    let db = Db::open(&options, dir.path()).unwrap();
    for i in 0..2u8 {
        db.put(b"a", &patterned(1000, i)).unwrap();
        db.flush().unwrap();
    }
    db.compact_range(None, None).unwrap();
    let wanted = only.0.events.lock().unwrap().clone();
    assert_eq!(wanted.len(), 2, "{wanted:?}");
    assert!(
        wanted
            .iter()
            .all(|e| e.starts_with("flush completed default ")),
        "{wanted:?}"
    );
    assert_eq!(only.0.flushed.lock().unwrap().len(), 2);
    assert!(only.0.compacted.lock().unwrap().is_empty());
    let every = all.events.lock().unwrap().clone();
    assert_eq!(
        every.len(),
        6,
        "two flushes begun and completed, one compaction: {every:?}"
    );
    assert_eq!(all.compacted.lock().unwrap().len(), 1);
    assert_eq!(Events::ALL, Events::FLUSH_COMPLETED | Events::ALL);
    assert!(!Events::NONE.contains(Events::FLUSH_BEGIN));
}

/// Three level-0 files at a slowdown trigger of three: writes slow down, then the
/// compaction those files trigger brings them back to normal: two changes, no more.
#[test]
fn a_stall_and_its_end_arrive_as_two_changes() {
    let recorder = Arc::new(Recorder::default());
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options
        .level0_file_num_compaction_trigger(3)
        .level0_slowdown_writes_trigger(3)
        .level0_stop_writes_trigger(50)
        .add_event_listener(recorder.clone());
    let db = Db::open(&options, dir.path()).unwrap();
    for i in 0..3u32 {
        db.put(&i.to_be_bytes(), &patterned(1000, i as u8)).unwrap();
        db.flush().unwrap();
    }
    db.wait_for_compact(false).unwrap();
    // RocksDB notifies from the thread that installed each change (the flush's, then the
    // compaction's), so the two can reach the listener in either order; `previous` says
    // which came first.
    let mut stalls = recorder.stalls.lock().unwrap().clone();
    stalls.sort_by_key(|(_, previous, _)| *previous != StallCondition::Normal);
    assert_eq!(
        stalls,
        [
            (
                "default".to_owned(),
                StallCondition::Normal,
                StallCondition::Delayed
            ),
            (
                "default".to_owned(),
                StallCondition::Delayed,
                StallCondition::Normal
            ),
        ]
    );
}

/// A full disk (an SST space limit reached) is a background error the listener sees, with
/// its reason; raising the limit and resuming ends the recovery with nothing left.
#[test]
fn a_background_error_and_its_recovery_reach_the_listener() {
    let recorder = Arc::new(Recorder::default());
    let files = SstFileManager::new();
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options
        .sst_file_manager(&files)
        .add_event_listener(recorder.clone());
    let db = Db::open(&options, dir.path()).unwrap();
    db.put(b"first", &patterned(4000, 1)).unwrap();
    db.flush().unwrap();
    files.set_max_allowed_space_usage(files.total_size());
    db.put(b"second", &patterned(4000, 2)).unwrap();
    assert_eq!(db.flush().unwrap_err().kind(), Some(ErrorKind::NoSpace));
    assert_eq!(
        recorder.errors.lock().unwrap().as_slice(),
        [("flush", Some(ErrorKind::NoSpace))]
    );
    files.set_max_allowed_space_usage(0);
    let start = std::time::Instant::now();
    while let Err(e) = db.resume() {
        assert_eq!(e.kind(), Some(ErrorKind::Busy), "{e}");
        assert!(start.elapsed().as_secs() < 120, "no recovery: {e}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // RocksDB's own recovery, or the resume, ends it: nothing left.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while recorder.recovered.lock().unwrap().is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "no recovery end event"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(recorder.recovered.lock().unwrap()[0], None);
    db.put(b"third", b"3").unwrap();
    assert_eq!(db.get(b"second").unwrap(), Some(patterned(4000, 2)));
}

/// A listener that panics in every event (1,000 of them, quietly: `resume_unwind` runs no
/// panic hook) and one that reads its database from an event: the database goes on, the
/// read is refused with a typed error, and a listener added beside them sees every event.
#[test]
fn panicking_and_reentering_listeners_leave_the_database_working() {
    struct Panics(AtomicUsize);
    impl EventListener for Panics {
        fn on_flush_begin(&self, _: &FlushInfo<'_>) {
            self.0.fetch_add(1, Ordering::Relaxed);
            std::panic::resume_unwind(Box::new("a listener that panics"));
        }
        fn on_flush_completed(&self, _: &FlushInfo<'_>) {
            self.0.fetch_add(1, Ordering::Relaxed);
            std::panic::resume_unwind(Box::new("a listener that panics"));
        }
    }
    struct Reads {
        db: OnceLock<Weak<Db>>,
        refused: AtomicUsize,
    }
    impl EventListener for Reads {
        fn on_flush_completed(&self, _: &FlushInfo<'_>) {
            if let Some(db) = self.db.get().and_then(Weak::upgrade) {
                if let Err(Error::InsideCallback { callback, .. }) = db.get(b"k") {
                    assert_eq!(callback, "event listener");
                    self.refused.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }
    let panics = Arc::new(Panics(AtomicUsize::new(0)));
    let reads = Arc::new(Reads {
        db: OnceLock::new(),
        refused: AtomicUsize::new(0),
    });
    let recorder = Arc::new(Recorder::default());
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options
        .disable_auto_compactions(true)
        .add_event_listener(panics.clone())
        .add_event_listener(reads.clone())
        .add_event_listener(recorder.clone());
    let db = Arc::new(Db::open(&options, dir.path()).unwrap());
    reads.db.set(Arc::downgrade(&db)).ok().unwrap();
    for i in 0..500u32 {
        db.put(&i.to_be_bytes(), b"v").unwrap();
        db.flush().unwrap();
    }
    assert_eq!(panics.0.load(Ordering::Relaxed), 1000);
    assert_eq!(reads.refused.load(Ordering::Relaxed), 500);
    assert_eq!(recorder.flushed.lock().unwrap().len(), 500);
    assert_eq!(
        db.get(&499u32.to_be_bytes()).unwrap().as_deref(),
        Some(&b"v"[..])
    );
}

/// A file created: its family, path, reason and entries.
type Created = (String, PathBuf, Option<TableFileReason>, u64);

/// The file events of a scripted life: what each says, in order per kind.
#[derive(Default)]
struct Files {
    sealed: Mutex<Vec<(String, u64, u64)>>,
    created: Mutex<Vec<Created>>,
    deleted: Mutex<Vec<PathBuf>>,
    ingested: Mutex<Vec<(String, PathBuf, PathBuf, u64)>>,
    handles: Mutex<Vec<String>>,
}

impl EventListener for Files {
    fn on_memtable_sealed(&self, info: &MemtableInfo<'_>) {
        let sealed = (info.cf_name.to_owned(), info.entries, info.deletes);
        self.sealed.lock().unwrap().push(sealed);
    }
    fn on_table_file_created(&self, info: &TableFileInfo<'_>) {
        if info.status.is_ok() {
            let path = info.file_path.to_owned();
            let created = (info.cf_name.to_owned(), path, info.reason, info.entries);
            self.created.lock().unwrap().push(created);
        }
    }
    fn on_table_file_deleted(&self, info: &TableFileInfo<'_>) {
        assert_eq!(info.reason, None);
        self.deleted.lock().unwrap().push(info.file_path.to_owned());
    }
    fn on_external_file_ingested(&self, info: &IngestionInfo<'_>) {
        let ingested = (
            info.cf_name.to_owned(),
            info.external_file_path.to_owned(),
            info.internal_file_path.to_owned(),
            info.entries,
        );
        self.ingested.lock().unwrap().push(ingested);
    }
    fn on_column_family_handle_deleted(&self, cf_name: &str) {
        self.handles.lock().unwrap().push(cf_name.to_owned());
    }
}

/// Two flushes (3 entries, one of them a delete; then 2), a compaction of their files, an
/// ingest of one file of 4 entries, a family created and dropped, then a close:
/// each event once, with what it was about.
#[test]
fn memtables_files_ingests_and_handles_arrive_with_what_they_were_about() {
    let files = Arc::new(Files::default());
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options
        .disable_auto_compactions(true)
        .add_event_listener(files.clone());
    let db = Db::open(&options, dir.path().join("db")).unwrap();
    db.put(b"a", b"1").unwrap();
    db.put(b"b", b"2").unwrap();
    db.delete(b"c").unwrap();
    db.flush().unwrap();
    db.put(b"a", b"3").unwrap();
    db.put(b"d", b"4").unwrap();
    db.flush().unwrap();
    assert_eq!(
        files.sealed.lock().unwrap().as_slice(),
        [("default".to_owned(), 3, 1), ("default".to_owned(), 2, 0)]
    );
    let flushed: Vec<PathBuf> = {
        let created = files.created.lock().unwrap();
        let shape: Vec<_> = created
            .iter()
            .map(|(cf, _, r, n)| (cf.as_str(), *r, *n))
            .collect();
        assert_eq!(
            shape,
            [
                ("default", Some(TableFileReason::Flush), 3),
                ("default", Some(TableFileReason::Flush), 2)
            ]
        );
        created.iter().map(|(_, path, _, _)| path.clone()).collect()
    };
    db.compact_range(None, None).unwrap();
    {
        let created = files.created.lock().unwrap();
        assert_eq!(created.len(), 3);
        // The bottom level drops the delete and the older "a": a, b, d.
        assert_eq!(created[2].2, Some(TableFileReason::Compaction));
        assert_eq!(created[2].3, 3);
    }
    // Obsolete files are purged after the compaction's job: wait for both deletions.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while files.deleted.lock().unwrap().len() < 2 {
        assert!(std::time::Instant::now() < deadline, "no deletions");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let deleted: BTreeSet<PathBuf> = files.deleted.lock().unwrap().iter().cloned().collect();
    assert_eq!(deleted, flushed.into_iter().collect::<BTreeSet<_>>());
    assert!(deleted.iter().all(|f| !f.exists()));

    let sst = dir.path().join("outside.sst");
    let mut writer = SstFileWriter::create(&options, &sst).unwrap();
    for key in [b"w", b"x", b"y", b"z"] {
        writer.put(key, b"ingested").unwrap();
    }
    writer.finish().unwrap();
    db.ingest(&[&sst], &IngestOptions::new()).unwrap();
    {
        let ingested = files.ingested.lock().unwrap();
        assert_eq!(ingested.len(), 1);
        let (cf, outside, inside, entries) = &ingested[0];
        assert_eq!((cf.as_str(), outside, *entries), ("default", &sst, 4));
        assert!(
            inside.starts_with(dir.path().join("db")) && inside.exists(),
            "{inside:?}"
        );
    }
    assert_eq!(db.get(b"y").unwrap().as_deref(), Some(&b"ingested"[..]));

    // The database keeps a family's handle while the family exists: dropping it deletes it.
    drop(db.create_cf("family", &create_options()).unwrap());
    assert!(files.handles.lock().unwrap().is_empty());
    db.drop_cf("family").unwrap();
    assert_eq!(files.handles.lock().unwrap().as_slice(), ["family"]);
    drop(db);
    let handles = files.handles.lock().unwrap().clone();
    assert_eq!(handles.first().map(String::as_str), Some("family"));
    assert!(handles.contains(&"default".to_owned()), "{handles:?}");
}
