//! Typed writes into any target: the database, a transaction, a batch or an indexed batch.

use std::marker::PhantomData;

use crate::codec::Codec;
use crate::raw::error::Result;
use crate::typed::encoding::encode;
use crate::write::target::{DbTarget, WriteTarget};
use crate::write::writer::Writer;

/// A [`Writer`] whose keys and values are encoded with codecs `K` and `V`, without an
/// intermediate `Vec`: from [`Writer::typed`], or from a [`Table`](crate::Table)
/// ([`Table::writer`](crate::Table::writer) on the database,
/// [`Table::write`](crate::Table::write) into a transaction or a batch).
pub struct TypedWriter<'a, K, V, T = DbTarget<'a>> {
    writer: Writer<'a, T>,
    _codecs: PhantomData<fn() -> (K, V)>,
}

impl<'a, T: WriteTarget> Writer<'a, T> {
    /// This writer's writes with typed keys (codec `K`) and values (codec `V`).
    pub fn typed<K: Codec, V: Codec>(self) -> TypedWriter<'a, K, V, T> {
        TypedWriter {
            writer: self,
            _codecs: PhantomData,
        }
    }
}

impl<K: Codec, V: Codec, T: WriteTarget> TypedWriter<'_, K, V, T> {
    /// Stores `value` at `key`.
    pub fn put(&mut self, key: &K::Item<'_>, value: &V::Item<'_>) -> Result<()> {
        let writer = &mut self.writer;
        encode::<K, _>(key, |k| encode::<V, _>(value, |v| writer.put(k, v)))??
    }

    /// Adds `operand`, encoded by the value codec, to `key`'s merge operands (the column
    /// family needs a [`MergeOperator`](crate::callbacks::MergeOperator), such as
    /// [`MergeOperator::fold`](crate::callbacks::MergeOperator::fold) over the same codec).
    pub fn merge(&mut self, key: &K::Item<'_>, operand: &V::Item<'_>) -> Result<()> {
        let writer = &mut self.writer;
        encode::<K, _>(key, |k| encode::<V, _>(operand, |v| writer.merge(k, v)))??
    }

    /// Removes `key`.
    pub fn delete(&mut self, key: &K::Item<'_>) -> Result<()> {
        let writer = &mut self.writer;
        encode::<K, _>(key, |k| writer.delete(k))?
    }
}
