//! Rust code that C++ calls back runs inside a [`Carried`]: a panic is caught before it
//! reaches the C++ frame (unwinding into C++ is undefined behaviour), carried across it,
//! and resumed on the Rust side once C++ has returned. One shape for every callback that
//! runs while a Rust caller waits (pinned reads, multi-gets, batch records, backup
//! progress); the callbacks RocksDB runs on its own threads (merge, compaction filters,
//! comparators) turn a panic into RocksDB's failure instead.

use std::any::Any;
use std::ffi::c_void;
use std::panic::{self, AssertUnwindSafe};

/// A callback's state, and a panic caught in it.
pub(crate) struct Carried<T> {
    pub(crate) state: T,
    panic: Option<Box<dyn Any + Send>>,
}

impl<T> Carried<T> {
    pub(crate) fn new(state: T) -> Self {
        Carried { state, panic: None }
    }

    /// The context pointer handed to C++, which hands it back to the trampoline.
    pub(crate) fn as_ctx(&mut self) -> *mut c_void {
        (self as *mut Self).cast()
    }

    /// The `Carried<T>` behind a context pointer.
    ///
    /// # Safety
    /// `ctx` must come from [`as_ctx`](Self::as_ctx) on a `Carried<T>` (the same `T`) that
    /// is live, and used by nothing else, while the returned borrow is.
    pub(crate) unsafe fn from_ctx<'a>(ctx: *mut c_void) -> &'a mut Self {
        // SAFETY: the caller's contract.
        unsafe { &mut *ctx.cast::<Self>() }
    }

    /// Runs `f` on the state, unless an earlier call panicked. A panic is kept for
    /// [`finish`](Self::finish); `None` if `f` panicked, now or before.
    pub(crate) fn run<R>(&mut self, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        if self.panic.is_some() {
            return None;
        }
        let state = &mut self.state;
        match panic::catch_unwind(AssertUnwindSafe(|| f(state))) {
            Ok(value) => Some(value),
            Err(payload) => {
                self.panic = Some(payload);
                None
            }
        }
    }

    /// After C++ has returned: resumes a panic caught in the callback, or gives the state.
    pub(crate) fn finish(self) -> T {
        if let Some(payload) = self.panic {
            panic::resume_unwind(payload);
        }
        self.state
    }
}

/// Drops what C++ hands back to be freed (a callback's state) without letting a panic in
/// its destructor unwind into C++: caught, its payload dropped by [`discard_panic`].
pub(crate) fn drop_in_callback<T>(value: T) {
    discard_panic(panic::catch_unwind(AssertUnwindSafe(move || drop(value))));
}

/// Ends a caught panic inside a callback: its payload is dropped inside `catch_unwind`
/// too, since a payload whose `Drop` panics would otherwise unwind out of the `extern "C"`
/// function and abort the process; such a second payload is forgotten (a leak, only then).
pub(crate) fn discard_panic<T>(outcome: std::thread::Result<T>) {
    if let Err(payload) = outcome {
        if let Err(again) = panic::catch_unwind(AssertUnwindSafe(move || drop(payload))) {
            std::mem::forget(again);
        }
    }
}
