//! One setter shape for every options handle: `name(&mut self, value) -> &mut Self`
//! calling the C API's `rocksdb_*_set_*` on the handle the options own (`self.raw`).

macro_rules! setter {
    ($(#[$doc:meta])* $name:ident($ty:ty) => $ffi:ident $(as $cast:ty)?) => {
        $(#[$doc])*
        pub fn $name(&mut self, value: $ty) -> &mut Self {
            // SAFETY: `self.raw` is a live options handle owned by `self`.
            unsafe { $crate::raw::ffi::$ffi(self.raw.as_ptr(), value $(as $cast)?) };
            self
        }
    };
}
pub(crate) use setter;
