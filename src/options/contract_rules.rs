//! The words the option table (`contract_table.rs`) is written in: which of RocksDB's
//! option maps a name belongs to, what values it may take, and the bounds shared with the
//! typed setters.

/// Which of RocksDB's option maps a name belongs to. Names inside a nested value are
/// written `parent.field` (`compaction_options_fifo.max_table_files_size`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Scope {
    /// `DBOptions` (`db_options_type_info`, `db_mutable_options_type_info`).
    Db,
    /// `ColumnFamilyOptions` (`cf_immutable_options_type_info`,
    /// `cf_mutable_options_type_info`), with its nested FIFO and universal compaction
    /// options.
    Cf,
    /// `BlockBasedTableOptions` (`block_based_table_type_info`).
    BlockBased,
    /// `PlainTableOptions` (`plain_table_type_info`).
    Plain,
    /// `CuckooTableOptions` (`cuckoo_table_type_info`).
    Cuckoo,
}

/// What values an option may take.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Rule {
    /// Any value RocksDB parses.
    Allowed,
    /// Only values inside the bound; the text says what RocksDB does with the value that
    /// makes the bound necessary.
    Bounded(Bound, &'static str),
    /// Refused unless it keeps RocksDB's default (`keep`, as RocksDB serializes it: an
    /// OPTIONS file or a default still loads), for the reason given: a pinrocks guarantee
    /// another value breaks, or how RocksDB 11.8.1 mishandles it.
    Refused {
        keep: &'static str,
        why: &'static str,
    },
    /// Only through the typed setter named, never by name: pinrocks keeps state for it
    /// on the Rust side (a comparator's order, a callback's lifetime). Any value the
    /// typed setter made is allowed.
    TypedOnly(&'static str),
    /// Deprecated: RocksDB 11.8.1 parses it and ignores it, so a setting by name would be
    /// reported done and never be in force. Refused by name.
    Ignored,
    /// pinrocks' own default differs from RocksDB's: `Options::new` and
    /// `StoredOptions::load` set `value` (an OPTIONS file's other value is replaced as it
    /// loads, where RocksDB's default is written); only `value` is allowed, for the reason
    /// given.
    Forced {
        value: &'static str,
        why: &'static str,
    },
}

/// The values a [`Rule::Bounded`] option may take, read from RocksDB's serialized form
/// (decimal integers, `%f` doubles, `true`/`false`, enum names).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Bound {
    /// An integer in `min..=max`.
    Int { min: i128, max: i128 },
    /// A finite double in `min..=max`.
    Float { min: f64, max: f64 },
    /// `0`, or a finite double in `min..=max` (0 turns the feature off).
    ZeroOrFloat { min: f64, max: f64 },
    /// One of these exact strings.
    OneOf(&'static [&'static str]),
    /// A value that names none of these (RocksDB's ids of objects it must not make).
    NoneOf(&'static [&'static str]),
}

/// One row of the table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Contract {
    pub(crate) scope: Scope,
    /// RocksDB's name (`parent.field` inside a nested value).
    pub(crate) name: &'static str,
    /// Whether RocksDB changes it on a live database (`SetOptions` / `SetDBOptions`).
    pub(crate) mutable: bool,
    pub(crate) rule: Rule,
}

/// Shorthands the table is written with.
pub(crate) const fn row(scope: Scope, name: &'static str, mutable: bool, rule: Rule) -> Contract {
    Contract {
        scope,
        name,
        mutable,
        rule,
    }
}

/// An integer bound, with why.
pub(crate) const fn int(min: i128, max: i128, why: &'static str) -> Rule {
    Rule::Bounded(Bound::Int { min, max }, why)
}

/// A double bound, with why.
pub(crate) const fn float(min: f64, max: f64, why: &'static str) -> Rule {
    Rule::Bounded(Bound::Float { min, max }, why)
}

/// A double that is 0 (off) or inside the bound, with why.
pub(crate) const fn zero_or_float(min: f64, max: f64, why: &'static str) -> Rule {
    Rule::Bounded(Bound::ZeroOrFloat { min, max }, why)
}

/// Refused unless it keeps RocksDB's default `keep`, with why.
pub(crate) const fn refused(keep: &'static str, why: &'static str) -> Rule {
    Rule::Refused { keep, why }
}

/// pinrocks' default `value`, the only one allowed on every path, with why.
pub(crate) const fn forced(value: &'static str, why: &'static str) -> Rule {
    Rule::Forced { value, why }
}

/// One of a few exact values, with why.
pub(crate) const fn one_of(values: &'static [&'static str], why: &'static str) -> Rule {
    Rule::Bounded(Bound::OneOf(values), why)
}

/// A value naming none of `values`, with why.
pub(crate) const fn none_of(values: &'static [&'static str], why: &'static str) -> Rule {
    Rule::Bounded(Bound::NoneOf(values), why)
}

/// The most threads pinrocks lets one background pool have (and `max_background_jobs`,
/// `max_background_compactions` and `max_background_flushes`, which size the pools at open
/// and in `set_db_options`): each is a thread with its own stack, started at once, and a
/// thread the system cannot start throws `std::system_error` on whatever thread grows the
/// pool, a flush or compaction thread among them, which kills the process. 1,024 is eight
/// per core on a 128-core server.
pub const MAX_POOL_THREADS: i32 = 1024;

/// 1 KiB, 1 MiB, 1 GiB: the units bounds are written in.
pub(crate) const KIB: i128 = 1 << 10;
pub(crate) const MIB: i128 = 1 << 20;
pub(crate) const GIB: i128 = 1 << 30;
