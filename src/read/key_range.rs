//! Ranges of keys as the readers take them: any std range over bytes, or a pair of bounds.

use std::ops::{Bound, Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

/// A range of keys, in the column family's order (bytewise unless it has a
/// [`Comparator`](crate::callbacks::Comparator)): any std range over something that is
/// `AsRef<[u8]>` (`b"a"..b"c"`, `k1..=k2`, `b"m"..`, `..b"m"`, `..`), or a pair of
/// [`Bound`]s. Used by [`Reader::range`](crate::Reader::range) and
/// [`Reader::scan`](crate::Reader::scan).
pub trait KeyRange {
    /// The start and end bounds, copied out once.
    fn key_bounds(&self) -> KeyBounds;
}

/// A range's start and end bounds, as owned keys.
pub type KeyBounds = (Bound<Box<[u8]>>, Bound<Box<[u8]>>);

fn copied<K: AsRef<[u8]>>(bound: Bound<&K>) -> Bound<Box<[u8]>> {
    bound.map(|k| Box::from(k.as_ref()))
}

impl KeyRange for RangeFull {
    fn key_bounds(&self) -> KeyBounds {
        (Bound::Unbounded, Bound::Unbounded)
    }
}

impl<K: AsRef<[u8]>> KeyRange for Range<K> {
    fn key_bounds(&self) -> KeyBounds {
        (
            copied(Bound::Included(&self.start)),
            copied(Bound::Excluded(&self.end)),
        )
    }
}

impl<K: AsRef<[u8]>> KeyRange for RangeInclusive<K> {
    fn key_bounds(&self) -> KeyBounds {
        (
            copied(Bound::Included(self.start())),
            copied(Bound::Included(self.end())),
        )
    }
}

impl<K: AsRef<[u8]>> KeyRange for RangeFrom<K> {
    fn key_bounds(&self) -> KeyBounds {
        (copied(Bound::Included(&self.start)), Bound::Unbounded)
    }
}

impl<K: AsRef<[u8]>> KeyRange for RangeTo<K> {
    fn key_bounds(&self) -> KeyBounds {
        (Bound::Unbounded, copied(Bound::Excluded(&self.end)))
    }
}

impl<K: AsRef<[u8]>> KeyRange for RangeToInclusive<K> {
    fn key_bounds(&self) -> KeyBounds {
        (Bound::Unbounded, copied(Bound::Included(&self.end)))
    }
}

impl<K: AsRef<[u8]>> KeyRange for (Bound<K>, Bound<K>) {
    fn key_bounds(&self) -> KeyBounds {
        (copied(self.0.as_ref()), copied(self.1.as_ref()))
    }
}
