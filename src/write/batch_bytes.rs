//! A write batch as bytes and back: RocksDB's own serialized form, to send or keep, rebuilt
//! into a batch only after RocksDB has checked it whole and pinrocks has found each family
//! it names in the database it is for. Its tests forge a header's count, to show a full
//! batch (`rocksdb-c/torn_records.h`) refuses one more record.

use std::sync::Arc;

use crate::db::database::Db;
use crate::db::handles::CfHandle;
use crate::raw::batch_records::{for_each_record_in_bytes, BatchRecord};
use crate::raw::c_consts::record;
use crate::raw::error::{Error, Result};
use crate::read::timestamps::TIMESTAMP_SIZE;
use crate::write::batch::WriteBatch;
use crate::write::entry_size::check_entry;

impl WriteBatch {
    /// The batch as RocksDB stores it (`WriteBatch::Data`: a 12-byte header, then its
    /// records), to send or keep and rebuild with [`from_bytes`](Self::from_bytes).
    ///
    /// Borrowed exclusively: writing the batch stamps a sequence number into its header
    /// (`DB::Write` takes `&WriteBatch` but changes those bytes), so the bytes cannot be
    /// held across a write:
    ///
    /// ```compile_fail
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut options = pinrocks::Options::new();
    /// # options.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&options, dir.path()).unwrap();
    /// let mut batch = pinrocks::WriteBatch::new();
    /// batch.writer().put(b"k", b"v").unwrap();
    /// let bytes = batch.as_bytes();
    /// db.write(&batch).unwrap(); // error: `batch` is borrowed by `bytes`
    /// assert_eq!(bytes.len(), 21);
    /// ```
    #[doc(alias = "Data")]
    pub fn as_bytes(&mut self) -> &[u8] {
        // Borrowed exclusively: unchanged while the slice lives (no write can take it).
        self.view().data()
    }

    /// Rebuilds a batch from [`as_bytes`](Self::as_bytes) of a batch for `db` (or for a
    /// database with the same column families): each column family id in the bytes is
    /// looked up among `db`'s open families. The bytes are checked whole first, and the
    /// batch is rebuilt record by record, so it holds only what a `WriteBatch` can: bytes
    /// that are malformed are `Corruption` (a wide-column entity too, unless it decodes
    /// whole and refers to no blob file); a transaction marker or a timed put is
    /// `NotSupported` (a blob index RocksDB's `InvalidArgument`); a merge
    /// into a family without a merge operator `NotSupported`; an id no open family has is
    /// [`Error::ColumnFamilyNotFound`] (a write naming it would stop the database).
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut options = pinrocks::Options::new();
    /// # options.create_if_missing(true);
    /// let db = pinrocks::Db::open(&options, dir.path())?;
    /// let mut batch = pinrocks::WriteBatch::new();
    /// batch.writer().put(b"k", b"v")?;
    /// let bytes = batch.as_bytes().to_vec(); // sent elsewhere, kept, ...
    /// let mut again = pinrocks::WriteBatch::from_bytes(&db, &bytes)?;
    /// assert_eq!(again.as_bytes(), &bytes[..]);
    /// db.write(&again)?;
    /// assert_eq!(db.get(b"k")?.as_deref(), Some(&b"v"[..]));
    /// # Ok(()) }
    /// ```
    pub fn from_bytes(db: &Db, bytes: &[u8]) -> Result<WriteBatch> {
        let inner = db.inner();
        let families: Vec<Arc<CfHandle>> = inner.column_families().values().cloned().collect();
        let family = |id: u32| -> Result<Option<&Arc<CfHandle>>> {
            if id == 0 {
                return Ok(None);
            }
            let found = families.iter().find(|h| h.id() == id);
            found.map(Some).ok_or_else(|| Error::ColumnFamilyNotFound {
                name: format!("(id {id})"),
            })
        };
        let mut batch = WriteBatch::new();
        let mut failed = None;
        for_each_record_in_bytes(bytes, |record| {
            if failed.is_some() {
                return;
            }
            let (op, key, value) = match record {
                BatchRecord::Put { key, value, .. } => (record::PUT, key, value),
                BatchRecord::Delete { key, .. } => (record::DELETE, key, &[][..]),
                BatchRecord::SingleDelete { key, .. } => (record::SINGLE_DELETE, key, &[][..]),
                BatchRecord::DeleteRange { start, end, .. } => (record::DELETE_RANGE, start, end),
                BatchRecord::Merge { key, value, .. } => (record::MERGE, key, value),
                BatchRecord::LogData(blob) => (record::LOG_DATA, blob, &[][..]),
                // Checked by the strict iteration, and again as it is written.
                BatchRecord::PutEntity { key, entity, .. } => (record::PUT_ENTITY, key, entity),
            };
            let cf = match family(record.cf().unwrap_or(0)) {
                Ok(cf) => cf,
                Err(e) => {
                    failed = Some(e);
                    return;
                }
            };
            if let Err(e) = add_record(
                &mut batch,
                cf.unwrap_or(&inner.default_cf),
                cf,
                op,
                key,
                value,
            ) {
                failed = Some(e);
            }
        })?;
        match failed {
            Some(e) => Err(e),
            None => Ok(batch),
        }
    }
}

/// Adds one record read from a batch's bytes to `batch`, for the family `cf` (`None`: the
/// default one, whose handle is `family`). In a family with timestamps RocksDB stores each
/// key (and a range's end) with its timestamp after it: taken off again and written with
/// the record, since a batch whose keys RocksDB must stamp is refused at the write.
fn add_record(
    batch: &mut WriteBatch,
    family: &Arc<CfHandle>,
    cf: Option<&Arc<CfHandle>>,
    op: u32,
    key: &[u8],
    value: &[u8],
) -> Result<()> {
    // A record's key includes its timestamp here, its value a range's end's.
    if op != record::LOG_DATA {
        check_entry("from_bytes", key, value)?;
    }
    let size = family.timestamp_size;
    if size == 0 || op == record::LOG_DATA {
        return batch.record(cf, op, key, value, None);
    }
    if size != TIMESTAMP_SIZE {
        // pinrocks writes u64 timestamps only.
        return Err(family.timestamp_mismatch(TIMESTAMP_SIZE));
    }
    fn split(bytes: &[u8]) -> Result<(&[u8], [u8; TIMESTAMP_SIZE])> {
        let at = bytes.len().checked_sub(TIMESTAMP_SIZE).ok_or_else(|| {
            Error::invalid("from_bytes", "a key shorter than its family's timestamp")
        })?;
        let ts = bytes[at..].try_into().expect("eight bytes");
        Ok((&bytes[..at], ts))
    }
    let (key, ts) = split(key)?;
    let value = if op == record::DELETE_RANGE {
        let (end, end_ts) = split(value)?;
        if end_ts != ts {
            return Err(Error::invalid(
                "from_bytes",
                "a range delete whose ends carry different timestamps",
            ));
        }
        end
    } else {
        value
    };
    batch.record(Some(family), op, key, value, Some(&ts))
}

#[cfg(test)]
mod tests {
    use crate::db::database::Db;
    use crate::options::db_options::Options;
    use crate::raw::batch::BatchPtr;
    use crate::raw::error::{Error, ErrorKind, Result};
    use crate::write::batch::WriteBatch;
    // rocksdb-c-dev/'s probe, linked into the tests alone.
    use pinrocks_dev_c as _;

    unsafe extern "C" {
        fn pinrocks_batch_set_count(batch: BatchPtr, count: u32);
    }

    /// Sets `batch`'s count as if it held `count` records.
    fn set_count(batch: BatchPtr, count: u32) {
        // SAFETY: a live batch of the caller's, nothing reading or writing it meanwhile.
        unsafe { pinrocks_batch_set_count(batch, count) };
    }

    /// Every kind of record into a batch whose count is full is refused, the batch left as
    /// it was; one below full takes one more. `write` writes a record of a kind and returns
    /// what came back and the batch's count after (a range delete where the target has
    /// one: a plain batch; the others write an entity in its place).
    fn refuses_one_more(batch: BatchPtr, write: &mut dyn FnMut(&str) -> (Result<()>, usize)) {
        set_count(batch, i32::MAX as u32);
        for kind in [
            "put",
            "delete",
            "single_delete",
            "merge",
            "entity",
            "delete_range",
        ] {
            match write(kind) {
                (
                    Err(Error::RocksDb {
                        kind: ErrorKind::InvalidArgument,
                        message,
                    }),
                    len,
                ) => {
                    assert!(
                        message.contains("at most 2147483647 records"),
                        "{kind}: {message}"
                    );
                    assert_eq!(len, i32::MAX as usize, "{kind}");
                }
                other => panic!("{kind}: {other:?}"),
            }
        }
        set_count(batch, i32::MAX as u32 - 1);
        let (put, len) = write("put");
        put.unwrap();
        assert_eq!(len, i32::MAX as usize);
    }

    #[test]
    fn a_batch_with_a_full_count_refuses_one_more_record() {
        let dir = tempfile::tempdir().unwrap();
        let mut options = Options::new();
        options.create_if_missing(true);
        // Merges reach the batch (pinrocks checks a family's operator before RocksDB).
        options
            .set_by_name(&[("merge_operator", "stringappend")])
            .unwrap();
        let db = Db::open(&options, dir.path()).unwrap();
        // Each kind of record through `$writer`.
        macro_rules! record {
            ($writer:expr, $kind:expr) => {{
                let mut w = $writer;
                match $kind {
                    "put" => w.put(b"full", b"x"),
                    "delete" => w.delete(b"full"),
                    "single_delete" => w.single_delete(b"full"),
                    "merge" => w.merge(b"full", b"x"),
                    _ => w.put_entity(b"full", &[("c", &b"x"[..])]),
                }
            }};
        }

        let mut batch = WriteBatch::new();
        batch.writer().put(b"kept", b"1").unwrap();
        let raw = batch.raw();
        refuses_one_more(raw, &mut |kind| {
            let written = match kind {
                "delete_range" => batch.writer().delete_range(b"a", b"b"),
                _ => record!(batch.writer(), kind),
            };
            (written, batch.len())
        });
        // Back to what it holds, the records as they were: "kept", then the last put.
        set_count(raw, 2);
        db.write(&batch).unwrap();
        assert_eq!(db.get(b"kept").unwrap().as_deref(), Some(&b"1"[..]));
        assert_eq!(db.get(b"full").unwrap().as_deref(), Some(&b"x"[..]));

        let mut indexed = db.indexed_batch().unwrap();
        indexed.writer().put(b"kept", b"2").unwrap();
        let raw = indexed.batch_ptr();
        refuses_one_more(raw, &mut |kind| {
            (record!(indexed.writer(), kind), indexed.len())
        });
        set_count(raw, 2);
        indexed.write().unwrap();
        assert_eq!(db.get(b"kept").unwrap().as_deref(), Some(&b"2"[..]));

        let txn_dir = tempfile::tempdir().unwrap();
        let txn_db = Db::open_optimistic_transaction_db(&options, txn_dir.path(), []).unwrap();
        let mut txn = txn_db.begin().unwrap();
        let raw = txn.batch_ptr();
        // SAFETY: the transaction's live batch, read between its writes.
        let len = || unsafe { crate::raw::batch::BatchView::new(raw) }.count() as usize;
        refuses_one_more(raw, &mut |kind| (record!(txn.writer(), kind), len()));
        set_count(raw, 1);
        txn.commit().unwrap();
        assert_eq!(txn_db.get(b"full").unwrap().as_deref(), Some(&b"x"[..]));
    }
}
