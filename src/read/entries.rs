//! The std-iterator face of a [`Cursor`]: [`Entries`], an [`Iterator`] over values that a
//! closure computes from the borrowed bytes, ending with the scan's error if it failed.

use std::iter::FusedIterator;

use crate::raw::error::Result;
use crate::read::cursor::Cursor;
use crate::read::source::DbSource;

impl<'a, S> Cursor<'a, S> {
    /// A std [`Iterator`] over `f(key, value)` for each entry from the current one
    /// forward. The bytes are borrowed only for the call, so `f` copies what it keeps. If
    /// the scan stops on an error (an I/O error, corruption), that error is the last item.
    pub fn forward<T, F: FnMut(&[u8], &[u8]) -> T>(self, f: F) -> Entries<'a, F, S> {
        Entries::new(self, f, false)
    }

    /// Like [`forward`](Self::forward), from the current entry backward.
    pub fn backward<T, F: FnMut(&[u8], &[u8]) -> T>(self, f: F) -> Entries<'a, F, S> {
        Entries::new(self, f, true)
    }
}

/// A std [`Iterator`] over a scan: each item is `Ok(f(key, value))`, and a scan that stopped
/// on an error ends with that `Err` (then `None`). From [`Cursor::forward`],
/// [`Cursor::backward`], [`Reader::scan`](crate::Reader::scan) and
/// [`Reader::scan_rev`](crate::Reader::scan_rev).
pub struct Entries<'a, F, S = DbSource> {
    it: Cursor<'a, S>,
    f: F,
    backward: bool,
    started: bool,
    done: bool,
}

impl<'a, F, S> Entries<'a, F, S> {
    fn new(it: Cursor<'a, S>, f: F, backward: bool) -> Self {
        Entries {
            it,
            f,
            backward,
            started: false,
            done: false,
        }
    }
}

impl<T, F: FnMut(&[u8], &[u8]) -> T, S> Iterator for Entries<'_, F, S> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        if self.done {
            return None;
        }
        if self.started {
            if self.backward {
                self.it.prev();
            } else {
                self.it.next();
            }
        }
        self.started = true;
        match self.it.entry() {
            Some((key, value)) => Some(Ok((self.f)(key, value))),
            None => {
                self.done = true;
                self.it.status().err().map(Err)
            }
        }
    }
}

impl<T, F: FnMut(&[u8], &[u8]) -> T, S> FusedIterator for Entries<'_, F, S> {}
