//! Every kind of open in one call: a plain, read-only, secondary or TTL database, or a
//! pessimistic or optimistic transaction database, each with its column families. The
//! database's handle and its families' handles come back for their owners above.

use std::ffi::{c_char, CStr, CString};
use std::ptr::NonNull;

use crate::raw::db::RawDb;
use crate::raw::error::{ErrPtr, Result};
use crate::raw::family::FamilyPtr;
use crate::raw::ffi;
use crate::raw::options_handle::OptionsHandle;
use crate::raw::transaction_options::{OptimisticDbOptionsHandle, TransactionDbOptionsHandle};

/// Which kind of database an open makes, with what that kind takes.
pub(crate) enum OpenAs<'a> {
    ReadWrite,
    ReadOnly {
        error_if_wal_exists: bool,
    },
    /// A secondary instance keeping its own files at this path.
    Secondary {
        path: &'a CStr,
    },
    /// `DBWithTTL`, one TTL in seconds per column family, in order.
    Ttl {
        ttls: &'a [i32],
    },
    Transaction(&'a TransactionDbOptionsHandle),
    Optimistic(&'a OptimisticDbOptionsHandle),
}

/// Opens the database at `path` with `options` and the column families `names`, each with
/// its options: the database's handle and one family handle per name, in order, the
/// caller's to own. The error is RocksDB's, as the open reported it.
///
/// # Safety
/// RocksDB keeps raw pointers from the options (their comparators, `Env`): what they
/// point at must outlive the database. (The info log it shares, by `shared_ptr`.)
pub(crate) unsafe fn open(
    options: &OptionsHandle,
    path: &CStr,
    names: &[CString],
    family_options: &[&OptionsHandle],
    kind: OpenAs<'_>,
) -> Result<(RawDb, Vec<FamilyPtr>)> {
    assert_eq!(
        names.len(),
        family_options.len(),
        "one options per column family"
    );
    let count = i32::try_from(names.len())
        .map_err(|_| crate::raw::error::Error::invalid("column families", "more than i32::MAX"))?;
    let name_ptrs: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
    let opt_ptrs: Vec<*const ffi::rocksdb_options_t> = family_options
        .iter()
        .map(|o| o.as_ptr().cast_const())
        .collect();
    let mut handles = vec![std::ptr::null_mut(); names.len()];
    let mut err = ErrPtr::new();
    let mut code = 0;
    let plain = |raw: *mut ffi::rocksdb_t| NonNull::new(raw).map(RawDb::Plain);
    // SAFETY: every pointer is live for the call (options, path, names and their options
    // borrowed; `handles` has one slot per name); RocksDB copies what it keeps (and keeps
    // the pointers the caller keeps alive) and, on success, fills `handles` in order with
    // handles the caller then owns. Guarded calls (an open recovers the WAL into memory: no
    // exception leaves it).
    let raw = unsafe {
        match kind {
            OpenAs::Transaction(txn_options) => {
                let txn_db = ffi::pinrocks_guarded_transactiondb_open_column_families(
                    &mut code,
                    options.as_ptr(),
                    txn_options.as_ptr(),
                    path.as_ptr(),
                    count,
                    name_ptrs.as_ptr(),
                    opt_ptrs.as_ptr(),
                    handles.as_mut_ptr(),
                    err.as_out(),
                );
                NonNull::new(txn_db).map(|txn_db| RawDb::Transaction {
                    handle: NonNull::new(ffi::pinrocks_transactiondb_as_db(txn_db.as_ptr()))
                        .expect("out of memory wrapping the transaction database"),
                    txn_db,
                })
            }
            OpenAs::Optimistic(otxn_options) => {
                let txn_db = ffi::pinrocks_guarded_optimistictransactiondb_open_column_families_with_otxn_db_options(
                    &mut code,
                    options.as_ptr(),
                    otxn_options.as_ptr(),
                    path.as_ptr(),
                    count,
                    name_ptrs.as_ptr(),
                    opt_ptrs.as_ptr(),
                    handles.as_mut_ptr(),
                    err.as_out(),
                );
                NonNull::new(txn_db).map(|txn_db| RawDb::Optimistic {
                    handle: NonNull::new(ffi::pinrocks_optimistictransactiondb_as_db(
                        txn_db.as_ptr(),
                    ))
                    .expect("out of memory wrapping the transaction database"),
                    txn_db,
                })
            }
            OpenAs::ReadOnly {
                error_if_wal_exists,
            } => plain(ffi::pinrocks_guarded_open_for_read_only_column_families(
                &mut code,
                options.as_ptr(),
                path.as_ptr(),
                count,
                name_ptrs.as_ptr(),
                opt_ptrs.as_ptr(),
                handles.as_mut_ptr(),
                u8::from(error_if_wal_exists),
                err.as_out(),
            )),
            OpenAs::ReadWrite => plain(ffi::pinrocks_guarded_open_column_families(
                &mut code,
                options.as_ptr(),
                path.as_ptr(),
                count,
                name_ptrs.as_ptr(),
                opt_ptrs.as_ptr(),
                handles.as_mut_ptr(),
                err.as_out(),
            )),
            OpenAs::Secondary { path: own_path } => {
                plain(ffi::pinrocks_guarded_open_as_secondary_column_families(
                    &mut code,
                    options.as_ptr(),
                    path.as_ptr(),
                    own_path.as_ptr(),
                    count,
                    name_ptrs.as_ptr(),
                    opt_ptrs.as_ptr(),
                    handles.as_mut_ptr(),
                    err.as_out(),
                ))
            }
            OpenAs::Ttl { ttls } => {
                assert_eq!(ttls.len(), names.len(), "one TTL per column family");
                plain(ffi::pinrocks_guarded_open_column_families_with_ttl(
                    &mut code,
                    options.as_ptr(),
                    path.as_ptr(),
                    count,
                    name_ptrs.as_ptr(),
                    opt_ptrs.as_ptr(),
                    handles.as_mut_ptr(),
                    ttls.as_ptr(),
                    err.as_out(),
                ))
            }
        }
    };
    err.check_with_code(Some(code))?;
    let raw = raw.expect("RocksDB open returned NULL without an error");
    Ok((raw, handles))
}
