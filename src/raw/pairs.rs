//! Names and values that C++ hands over one pair at a time (a parsed options string, a map
//! property), collected into any `Extend` container through one `pinrocks_pair_fn`.

use std::ffi::{c_char, c_void};

use crate::raw::error::{ErrPtr, Error, Result};
use crate::raw::ffi;

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

/// The pairs a C++ call hands to a `pinrocks_pair_fn`, collected: `call` gets the function,
/// its context, and the status code and error slots to pass on; the call's error, if any,
/// comes back instead.
pub(crate) fn collect_pairs(
    call: impl FnOnce(ffi::pinrocks_pair_fn, *mut c_void, &mut i32, *mut *mut c_char),
) -> Result<Vec<(String, String)>> {
    let mut pairs = Carried::new(Vec::new());
    let (mut code, mut err) = (0, ErrPtr::new());
    call(
        Some(collect_pair::<Vec<(String, String)>>),
        pairs.as_ctx(),
        &mut code,
        err.as_out(),
    );
    let pairs = pairs.finish();
    err.check_with_code(Some(code)).map(|()| pairs)
}

/// RocksDB's split of an options string into names and values, in name order.
pub(crate) fn string_to_map(options: &str) -> Result<Vec<(String, String)>> {
    let pairs = collect_pairs(|f, ctx, code, err| {
        // SAFETY: the string is borrowed for the call; `f` matches `ctx`. Guarded.
        unsafe {
            ffi::pinrocks_options_string_to_map(
                options.as_ptr().cast(),
                options.len(),
                f,
                ctx,
                code,
                err,
            )
        }
    });
    let mut pairs = pairs.map_err(Error::into_option_refusal)?;
    pairs.sort();
    Ok(pairs)
}
