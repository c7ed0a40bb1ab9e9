//! The `Env`s pinrocks makes besides RocksDB's default: a file system in memory and, with
//! the `fault-injection` feature, RocksDB's fault-injecting file system. RocksDB keeps a raw
//! pointer to either, so their owners above keep them alive for every options handle and
//! database that points at them.

use std::ptr::NonNull;

use crate::raw::error::{with_code, Result};
use crate::raw::ffi;
use crate::raw::options_handle::OptionsHandle;

/// Owns the native in-memory `Env` (`MockFileSystem` under a `CompositeEnvWrapper`).
pub(crate) struct MemEnvHandle(NonNull<ffi::pinrocks_mem_env_t>);

// SAFETY: RocksDB's `MockFileSystem` (env/mock_env.cc) guards its file map with a mutex, and
// each file its own data (sizes atomic); the `Env` over it is a `CompositeEnvWrapper` of the
// default `Env`'s threads and clock, used by RocksDB from every thread. Slices into a file's
// buffer (mmap reads) are refused at open.
unsafe impl Send for MemEnvHandle {}
// SAFETY: see `Send`.
unsafe impl Sync for MemEnvHandle {}

impl Drop for MemEnvHandle {
    fn drop(&mut self) {
        // SAFETY: owned, destroyed once, after every database and options handle pointing
        // at it has let go (each keeps its owner).
        unsafe { ffi::pinrocks_mem_env_destroy(self.0.as_ptr()) };
    }
}

impl MemEnvHandle {
    /// A new, empty file system in memory.
    pub(crate) fn new() -> Result<MemEnvHandle> {
        // SAFETY: plain constructor; NULL only with an error.
        let raw = with_code(|code, err| unsafe { ffi::pinrocks_mem_env_create(code, err) })?;
        let raw =
            NonNull::new(raw).expect("pinrocks_mem_env_create returned NULL without an error");
        Ok(MemEnvHandle(raw))
    }

    /// Points `options` at this `Env`.
    ///
    /// # Safety
    /// `self` must outlive `options` and every database opened with them.
    pub(crate) unsafe fn install(&self, options: &mut OptionsHandle) {
        // SAFETY: both live; RocksDB keeps the pointer (the caller's contract).
        unsafe { ffi::pinrocks_options_set_mem_env(options.as_ptr(), self.0.as_ptr()) };
    }
}

/// Owns the native fault-injecting file system and the `Env` over it.
#[cfg(feature = "fault-injection")]
pub(crate) struct FaultFsHandle(NonNull<ffi::pinrocks_fault_fs_t>);

// SAFETY: `FaultInjectionTestFS` guards its state with its own mutex and is used by RocksDB
// from every thread; the error contexts it injects from are per thread by design
// (`ThreadLocalPtr`). The `Env` over it is RocksDB's `CompositeEnvWrapper`, shared by all of
// RocksDB's threads.
#[cfg(feature = "fault-injection")]
unsafe impl Send for FaultFsHandle {}
// SAFETY: see `Send`.
#[cfg(feature = "fault-injection")]
unsafe impl Sync for FaultFsHandle {}

#[cfg(feature = "fault-injection")]
impl Drop for FaultFsHandle {
    fn drop(&mut self) {
        // SAFETY: owned, destroyed once, after every database on it has closed and every
        // options handle pointing at it has dropped (each keeps its owner).
        unsafe { ffi::pinrocks_fault_fs_destroy(self.0.as_ptr()) };
    }
}

/// A fault kind: `PINROCKS_FAULT_READ`, `_WRITE`, `_METADATA_READ`, `_METADATA_WRITE`.
#[cfg(feature = "fault-injection")]
pub(crate) use crate::raw::ffi::{
    PINROCKS_FAULT_DROP_RANDOM_UNSYNCED as DROP_RANDOM_UNSYNCED,
    PINROCKS_FAULT_DROP_UNSYNCED as DROP_UNSYNCED, PINROCKS_FAULT_KEEP_UNSYNCED as KEEP_UNSYNCED,
    PINROCKS_FAULT_METADATA_READ as METADATA_READ, PINROCKS_FAULT_METADATA_WRITE as METADATA_WRITE,
    PINROCKS_FAULT_READ as READ, PINROCKS_FAULT_STOP_IO_ERROR as STOP_IO_ERROR,
    PINROCKS_FAULT_STOP_NO_SPACE as STOP_NO_SPACE,
    PINROCKS_FAULT_STOP_POWER_LOSS as STOP_POWER_LOSS, PINROCKS_FAULT_WRITE as WRITE,
};

#[cfg(feature = "fault-injection")]
impl FaultFsHandle {
    /// Over the real file system, or over one in memory.
    pub(crate) fn new(in_memory: bool) -> Result<FaultFsHandle> {
        // SAFETY: plain constructor; NULL only with an error.
        let raw = with_code(|code, err| unsafe {
            ffi::pinrocks_fault_fs_create(u8::from(in_memory), code, err)
        })?;
        let raw =
            NonNull::new(raw).expect("pinrocks_fault_fs_create returned NULL without an error");
        Ok(FaultFsHandle(raw))
    }

    fn as_ptr(&self) -> *mut ffi::pinrocks_fault_fs_t {
        self.0.as_ptr()
    }

    /// Every file operation fails from now on with `error` (a `STOP_*`).
    pub(crate) fn stop(&self, error: u32) -> Result<()> {
        // SAFETY: live file system; guarded.
        with_code(|code, err| unsafe {
            ffi::pinrocks_fault_fs_stop(self.as_ptr(), error as i32, code, err)
        })
    }

    /// RocksDB's sleeps through this `Env`'s clock last at most this long.
    pub(crate) fn cap_sleeps(&self, max_micros: i64) {
        // SAFETY: live file system; an atomic store, cannot fail or throw.
        unsafe { ffi::pinrocks_fault_fs_cap_sleeps(self.as_ptr(), max_micros) };
    }

    /// Runs again, dropping unsynced data as `drop` says (`DROP_*`, `KEEP_UNSYNCED`).
    pub(crate) fn restart(&self, drop: u32, seed: u32) -> Result<()> {
        // SAFETY: live file system; guarded.
        with_code(|code, err| unsafe {
            ffi::pinrocks_fault_fs_restart(self.as_ptr(), drop as i32, seed, code, err)
        })
    }

    /// Fails one in `one_in` operations of `kind` of this thread, or (`background`) of
    /// each flush and compaction that begins from now on.
    pub(crate) fn inject(
        &self,
        background: bool,
        kind: u32,
        seed: u32,
        one_in: i32,
        retryable: bool,
        data_loss: bool,
    ) -> Result<()> {
        let (retryable, data_loss) = (u8::from(retryable), u8::from(data_loss));
        if background {
            // SAFETY: live file system; the kind is one of the four codes; atomics only.
            unsafe {
                ffi::pinrocks_fault_fs_inject_background(
                    self.as_ptr(),
                    kind as i32,
                    seed,
                    one_in,
                    retryable,
                    data_loss,
                )
            };
            return Ok(());
        }
        // SAFETY: live file system; guarded.
        with_code(|code, err| unsafe {
            ffi::pinrocks_fault_fs_inject(
                self.as_ptr(),
                kind as i32,
                seed,
                one_in,
                retryable,
                data_loss,
                code,
                err,
            )
        })
    }

    /// Errors of `kind` injected into this thread's operations (`background`: into
    /// flushes and compactions) since the last call, the count reset.
    pub(crate) fn take_injected(&self, background: bool, kind: u32) -> usize {
        // SAFETY: live file system; the kind is one of the four codes; an atomic exchange.
        let count = unsafe {
            if background {
                ffi::pinrocks_fault_fs_background_injected(self.as_ptr(), kind as i32)
            } else {
                ffi::pinrocks_fault_fs_injected(self.as_ptr(), kind as i32)
            }
        };
        count.max(0) as usize
    }

    /// Points `options` at this file system's `Env`, with the listener that arms background
    /// injection.
    ///
    /// # Safety
    /// `self` must outlive `options` and every database opened with them.
    pub(crate) unsafe fn install(&self, options: &mut OptionsHandle) -> Result<()> {
        // SAFETY: both live; RocksDB keeps the `Env` pointer (the caller's contract); the
        // listener holds its own references to the file system's parts. Guarded.
        with_code(|code, err| unsafe {
            ffi::pinrocks_options_set_fault_fs(options.as_ptr(), self.as_ptr(), code, err)
        })
    }
}
