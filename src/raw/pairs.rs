//! Names and values that C++ hands over one pair at a time (a parsed options string, a map
//! property), collected into any `Extend` container through one `pinrocks_pair_fn`.

use std::ffi::{c_char, c_void};

use crate::raw::pinned::value_slice;
use crate::raw::trampoline::Carried;

/// A `pinrocks_pair_fn` adding each pair (lossy UTF-8) to the `Carried<C>` behind `ctx`.
pub(crate) extern "C" fn collect_pair<C: Extend<(String, String)>>(
    ctx: *mut c_void,
    key: *const c_char,
    key_len: usize,
    value: *const c_char,
    value_len: usize,
) {
    // SAFETY: `ctx` is the `Carried<C>` the caller passed with this function for the call.
    let pairs = unsafe { Carried::<C>::from_ctx(ctx) };
    // SAFETY: C++ passes its strings, valid during this call.
    let (key, value) = unsafe { (value_slice(key, key_len), value_slice(value, value_len)) };
    pairs.run(|pairs| {
        pairs.extend([(
            String::from_utf8_lossy(key).into_owned(),
            String::from_utf8_lossy(value).into_owned(),
        )])
    });
}
