//! One shape for the plain calls on a native handle: a list of `fn name(args) = c_function;`
//! lines that [`handle_calls!`] turns into safe methods, each calling the C function on the
//! handle with its arguments converted by [`CArg`]. The upper layers call these methods and
//! never the bindings.

use std::ffi::{c_char, c_uchar};

/// A value the C API takes as it is: a number, a flag, or a live handle borrowed for the
/// call. The C function's parameter type must be [`CArg::C`], so a wrong pairing does not
/// compile.
pub(crate) trait CArg {
    /// The C API's type for it.
    type C;
    /// The value as the C API takes it.
    fn c(self) -> Self::C;
}

macro_rules! plain_c_args {
    ($($ty:ty),*) => {$(
        impl CArg for $ty {
            type C = $ty;
            fn c(self) -> $ty {
                self
            }
        }
    )*};
}
plain_c_args!(bool, i8, u8, i32, u32, i64, u64, usize, f64);

/// RocksDB's C flags are `unsigned char`, 0 or 1.
pub(crate) fn flag(value: bool) -> c_uchar {
    c_uchar::from(value)
}

/// A C string for the call (it must outlive it: the caller's borrow does).
impl CArg for &std::ffi::CStr {
    type C = *const c_char;
    fn c(self) -> *const c_char {
        self.as_ptr()
    }
}

/// Implements [`CArg`] for a borrowed handle type: the C function gets its pointer.
macro_rules! handle_arg {
    ($handle:ty => $c:ty) => {
        impl $crate::raw::handle_calls::CArg for &$handle {
            type C = *mut $c;
            fn c(self) -> *mut $c {
                self.as_ptr()
            }
        }
    };
}
pub(crate) use handle_arg;

/// Safe methods on a handle type (one with `fn as_ptr(&self) -> *mut T`), one per C
/// function listed. `&mut self` for a call that changes an object not safe to share while
/// changed (options), `&self` for one the C++ object locks or makes atomic itself.
///
/// Only list a C function that, given the live handle and any value of its arguments, is
/// sound: it keeps nothing borrowed from an argument past the call (it copies values and
/// takes `shared_ptr` shares of handles) and throws no C++ exception. A call that needs
/// more (a bound, a guard, a pointer kept) is written out by hand with its own SAFETY line.
macro_rules! handle_calls {
    ($handle:ty {}) => {};
    ($handle:ty {
        $(#[$doc:meta])*
        fn $name:ident(&mut self $(, $arg:ident: $ty:ty)* $(,)?) $(-> $ret:ty)? = $cfn:ident;
        $($rest:tt)*
    }) => {
        impl $handle {
            $(#[$doc])*
            pub(crate) fn $name(&mut self $(, $arg: $ty)*) $(-> $ret)? {
                // SAFETY: a live handle owned by `self`, borrowed exclusively; the listed C
                // function keeps nothing of its arguments and throws nothing (the list's
                // contract, above).
                unsafe {
                    $crate::raw::ffi::$cfn(
                        self.as_ptr() $(, $crate::raw::handle_calls::CArg::c($arg))*
                    )
                }
            }
        }
        $crate::raw::handle_calls::handle_calls!($handle { $($rest)* });
    };
    ($handle:ty {
        $(#[$doc:meta])*
        fn $name:ident(&self $(, $arg:ident: $ty:ty)* $(,)?) $(-> $ret:ty)? = $cfn:ident;
        $($rest:tt)*
    }) => {
        impl $handle {
            $(#[$doc])*
            pub(crate) fn $name(&self $(, $arg: $ty)*) $(-> $ret)? {
                // SAFETY: a live handle owned by `self`, whose C++ object locks or makes
                // atomic what this call touches; the listed C function keeps nothing of
                // its arguments and throws nothing (the list's contract, above).
                unsafe {
                    $crate::raw::ffi::$cfn(
                        self.as_ptr() $(, $crate::raw::handle_calls::CArg::c($arg))*
                    )
                }
            }
        }
        $crate::raw::handle_calls::handle_calls!($handle { $($rest)* });
    };
}
pub(crate) use handle_calls;

/// A handle owning one plain C API options object, made by its `create` function.
macro_rules! plain_handle {
    ($(#[$doc:meta])* $name:ident => $c:ident, $create:ident) => {
        $(#[$doc])*
        pub(crate) struct $name($crate::raw::owned::Owned<$crate::raw::ffi::$c>);

        impl $name {
            /// RocksDB's defaults.
            pub(crate) fn new() -> $name {
                // SAFETY: plain constructor: a new object, ours alone (or NULL, refused).
                let raw = unsafe { $crate::raw::ffi::$create() };
                // SAFETY: as above.
                $name(unsafe { $crate::raw::owned::Owned::from_raw(raw) }.expect(concat!(stringify!($create), " returned NULL")))
            }

            /// The handle, live while `self` is.
            pub(crate) fn as_ptr(&self) -> *mut $crate::raw::ffi::$c {
                self.0.as_ptr()
            }
        }

        $crate::raw::handle_calls::handle_arg!($name => $crate::raw::ffi::$c);
    };
}
pub(crate) use plain_handle;
