//! How keys are kept: their prefix (for prefix filters, prefix seeks and the hash
//! memtables), the memtable's kind and the SST file format (block-based or plain). Not the
//! cuckoo format: RocksDB 11.8.1's cuckoo builder drops every value whose length differs
//! from the file's first (and every merge) and still reports the flush done.

use crate::callbacks::prefix_extractor::CustomPrefix;
use crate::options::db_options::Options;
use crate::options::table_options::TableFormat;
use crate::raw::c_consts::{
    MEMTABLE_HASH_LINK_LIST, MEMTABLE_HASH_SKIP_LIST, MEMTABLE_SKIP_LIST, MEMTABLE_VECTOR,
    OPTION_SCOPE_CF, OPTION_SCOPE_TABLE, PREFIX_CAPPED, PREFIX_FIXED,
};
use crate::raw::error::Error;
use crate::raw::setter::setter;

/// How a key's prefix is taken, for prefix bloom filters and prefix seeks. For any other
/// rule, a [`CustomPrefix`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrefixExtractor {
    /// The first `n` bytes; shorter keys have no prefix (they are filtered by whole key).
    Fixed(usize),
    /// The first `n` bytes, or the whole key if it is shorter.
    Capped(usize),
}

/// The memtable's structure. The hash kinds take no concurrent writes: choosing one turns
/// RocksDB's `allow_concurrent_memtable_write` off (RocksDB refuses to open with it on),
/// and choosing the skip list or the vector turns it back on (its default). That setting
/// is the database's: a family created later with a hash kind needs a database opened
/// with it off (an open with such a family, or `allow_concurrent_memtable_write` set by
/// name), or RocksDB refuses the family (`InvalidArgument`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Memtable {
    /// A skip list (RocksDB's default): ordered, concurrent inserts.
    SkipList,
    /// A vector sorted when read or flushed: fast bulk inserts, slow reads before the
    /// flush (a point read sorts it). `reserve` entries are allocated up front.
    Vector {
        /// Entries allocated up front (0: grow as needed).
        reserve: usize,
    },
    /// A hash of prefixes, each bucket a skip list: prefix-local reads and writes. Needs a
    /// prefix extractor (without one RocksDB uses a skip list); iterating across prefixes
    /// sorts a copy of the memtable.
    HashSkipList {
        /// Hash buckets (RocksDB's default 1,000,000).
        buckets: usize,
        /// Each skip list's height (default 4).
        height: i32,
        /// Each skip list's branching factor (default 4).
        branching: i32,
    },
    /// A hash of prefixes, each bucket a linked list (or a skip list once long): for few
    /// keys per prefix. Needs a prefix extractor, as [`Memtable::HashSkipList`].
    HashLinkList {
        /// Hash buckets (RocksDB's default 50,000).
        buckets: usize,
    },
}

/// Settings of the plain table format: SST files without blocks, meant for memory (mmap)
/// or tmpfs, with a hash index of key prefixes (with a prefix extractor) or a binary
/// search of the keys (without one, and with `hash_table_ratio` 0). With the hash index it
/// answers point reads, and prefix seeks: [`Reader::prefix_iter`](crate::Reader::prefix_iter)
/// with read options that have `auto_prefix_mode(false)` and `prefix_same_as_start(true)`;
/// a seek in total order (a range read with pinrocks' default options) is RocksDB's
/// `InvalidArgument`. Defaults are RocksDB's.
///
/// What RocksDB's plain tables cannot hold is refused before it reaches them: a hash or the
/// prefix encoding without a prefix extractor (the open fails; RocksDB would fail, or
/// crash, at the first flush), and range deletes into a plain-table family (`NotSupported`;
/// RocksDB would fail every flush and stop the database). Keys are of variable length
/// (RocksDB's fixed `user_key_len` writes a longer key as a corrupt file).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlainTableOptions {
    /// Bits per prefix of the bloom filter (0: none).
    pub bloom_bits_per_key: i32,
    /// Prefixes per hash bucket, as a ratio. 0 without a prefix extractor (a binary search
    /// only): a hash needs one.
    pub hash_table_ratio: f64,
    /// Keys per index entry within a prefix.
    pub index_sparseness: usize,
    /// Store keys sharing a prefix once (RocksDB's `kPrefix` encoding; needs a prefix
    /// extractor).
    pub prefix_encoding: bool,
    /// Build no index: the file can only be scanned.
    pub full_scan_mode: bool,
    /// Store the index and bloom filter in the file instead of building them at open.
    pub store_index_in_file: bool,
}

impl Default for PlainTableOptions {
    fn default() -> Self {
        PlainTableOptions {
            bloom_bits_per_key: 10,
            hash_table_ratio: 0.75,
            index_sparseness: 16,
            prefix_encoding: false,
            full_scan_mode: false,
            store_index_in_file: false,
        }
    }
}

/// The most buckets or reserved entries a memtable may ask for (each memtable allocates
/// them up front: 2^24 pointers are 128 MiB).
const MOST_SLOTS: usize = 1 << 24;

impl Memtable {
    /// `Err` for sizes RocksDB does not check: zero buckets (a division by zero), a height
    /// outside 1..=32 or a branching factor below 1 (writes outside a node), or more than
    /// `MOST_SLOTS` buckets or entries (an allocation that throws inside a memtable switch).
    fn check(&self) -> crate::raw::error::Result<()> {
        let (slots, height, branching) = match *self {
            Memtable::SkipList => return Ok(()),
            Memtable::Vector { reserve } => (reserve.max(1), 1, 1),
            Memtable::HashSkipList {
                buckets,
                height,
                branching,
            } => (buckets, height, branching),
            Memtable::HashLinkList { buckets } => (buckets, 1, 1),
        };
        if !(1..=MOST_SLOTS).contains(&slots) || !(1..=32).contains(&height) || branching < 1 {
            return Err(Error::invalid(
                "memtable",
                format!(
                    "{self:?}: buckets and reserved entries 1..={MOST_SLOTS} (0 reserved is \
                     none), height 1..=32, branching at least 1"
                ),
            ));
        }
        Ok(())
    }
}

impl Options {
    /// Takes each key's prefix with `extractor`: filters then hold prefixes, so a prefix
    /// iteration ([`Reader::prefix_iter`](crate::Reader::prefix_iter), bounded at the
    /// prefix's end) skips files without the prefix. Other iterations stay in total order
    /// (pinrocks' read options have `auto_prefix_mode` on).
    ///
    /// Scope: column family (`prefix_extractor`).
    pub fn prefix_extractor(&mut self, extractor: PrefixExtractor) -> &mut Self {
        let (kind, len) = match extractor {
            PrefixExtractor::Fixed(n) => (PREFIX_FIXED, n),
            PrefixExtractor::Capped(n) => (PREFIX_CAPPED, n),
        };
        let reported = self.raw.set_prefix_extractor(kind, len);
        self.note_failure("prefix_extractor", reported);
        self
    }

    /// Takes each key's prefix with a Rust function (see [`CustomPrefix`]), as
    /// [`prefix_extractor`](Self::prefix_extractor) does with RocksDB's own.
    ///
    /// Scope: column family (`prefix_extractor`).
    pub fn custom_prefix_extractor(&mut self, extractor: &CustomPrefix) -> &mut Self {
        let raw = extractor.to_raw();
        // SAFETY: live options; `raw` is new and taken over by the options (freed by them
        // if the call fails).
        let reported = unsafe { self.raw.set_custom_prefix_extractor(raw) };
        self.note_failure("custom_prefix_extractor", reported);
        self
    }

    setter!(
        /// A bloom filter of key prefixes in each memtable, this fraction of its size (needs a
        /// prefix extractor; 0.1 is a common choice).
        ///
        /// Scope: column family (`memtable_prefix_bloom_size_ratio`).
        memtable_prefix_bloom_ratio(f64) => rocksdb_options_set_memtable_prefix_bloom_size_ratio
    );
    setter!(
        /// `memtable_whole_key_filtering`: whole keys in the memtable's bloom filter too
        /// (sized by [`memtable_prefix_bloom_ratio`](Self::memtable_prefix_bloom_ratio)).
        ///
        /// Scope: column family (`memtable_whole_key_filtering`).
        memtable_whole_key_filtering(bool) => rocksdb_options_set_memtable_whole_key_filtering as u8
    );

    /// The memtable's structure (see [`Memtable`]).
    ///
    /// Scope: column family (`memtable_factory`).
    pub fn memtable(&mut self, memtable: Memtable) -> &mut Self {
        let (kind, count, height, branching) = match memtable {
            Memtable::SkipList => (MEMTABLE_SKIP_LIST, 0, 0, 0),
            Memtable::Vector { reserve } => (MEMTABLE_VECTOR, reserve, 0, 0),
            Memtable::HashSkipList {
                buckets,
                height,
                branching,
            } => (MEMTABLE_HASH_SKIP_LIST, buckets, height, branching),
            Memtable::HashLinkList { buckets } => (MEMTABLE_HASH_LINK_LIST, buckets, 0, 0),
        };
        if let Err(e) = memtable.check() {
            self.note_failure("memtable", Err(e));
            return self;
        }
        let concurrent = matches!(memtable, Memtable::SkipList | Memtable::Vector { .. });
        let made = self
            .raw
            .set_memtable(kind, count, height, branching, concurrent);
        self.note_failure("memtable", made);
        self
    }

    /// SST files in the plain table format (see [`PlainTableOptions`]), replacing the
    /// block-based table: the block-based settings ([`bloom_filter`](Self::bloom_filter),
    /// [`block_size`](Self::block_size), the block cache) are refused after it, until
    /// [`block_based_table`](Self::block_based_table) chooses that format again.
    ///
    /// Scope: column family (`table_factory`).
    pub fn plain_table(&mut self, table: &PlainTableOptions) -> &mut Self {
        self.raw.set_plain_table_factory(
            0, // kPlainTableVariableLength: a fixed length is not checked on write
            table.bloom_bits_per_key,
            table.hash_table_ratio,
            table.index_sparseness,
            0, // huge_page_tlb_size: no huge pages
            // EncodingType: kPlain 0, kPrefix 1.
            u8::from(table.prefix_encoding) as std::ffi::c_char,
            u8::from(table.full_scan_mode),
            u8::from(table.store_index_in_file),
        );
        self.format = TableFormat::Plain {
            needs_extractor: table.prefix_encoding || table.hash_table_ratio != 0.0,
        };
        self
    }

    /// The table format RocksDB will use, read back from it (a table factory set by name
    /// changes it behind the typed setters).
    pub(crate) fn format_in_force(&self) -> crate::raw::error::Result<TableFormat> {
        let (cf, table) = (
            self.raw.serialized(OPTION_SCOPE_CF)?,
            self.raw.serialized(OPTION_SCOPE_TABLE)?,
        );
        let get = |pairs: &[(String, String)], name: &str| {
            pairs
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        };
        Ok(match get(&cf, "table_factory").as_deref() {
            Some("PlainTable") => TableFormat::Plain {
                needs_extractor: get(&table, "encoding_type").as_deref() == Some("kPrefix")
                    || get(&table, "hash_table_ratio")
                        .and_then(|r| r.parse::<f64>().ok())
                        .is_none_or(|r| r != 0.0),
            },
            _ => TableFormat::BlockBased,
        })
    }

    /// Whether the block-based table is the format chosen; if not, `setting` (a
    /// block-based one) is noted as refused, for the open to report.
    pub(crate) fn block_based_in_use(&mut self, setting: &'static str) -> bool {
        if self.format == TableFormat::BlockBased {
            return true;
        }
        self.note_failure(
            setting,
            Err(Error::invalid(
                setting,
                "a block-based table setting after plain_table: choose the block-based format \
                 again with block_based_table first",
            )),
        );
        false
    }
}
