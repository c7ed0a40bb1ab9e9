//! Every option RocksDB 11.8.1 parses is a contract: allowed as it is, allowed within a
//! bound (what RocksDB allocates, sizes, spins or starts threads from), or refused (it
//! breaks a guarantee pinrocks makes, or RocksDB mishandles it). The table is
//! [`contract_table`](crate::options::contract_table), written with the rules of
//! [`contract_rules`](crate::options::contract_rules); this file is how it is read.
//!
//! Every path that sets options meets it: the typed setters and `set_by_name` (checked on
//! the options as RocksDB parsed them, before they are kept), OPTIONS files
//! (`StoredOptions`), every open and family creation (the options RocksDB is about to use,
//! read back from RocksDB itself), and `set_options` / `set_db_options` (before the live
//! database sees them).
//!
//! Long because it holds the contract's whole reading in one place: the rule types, how a
//! value is read as RocksDB reads it (before and after parsing), the checks every path
//! calls, the public view of the table, and the tests that hold the table to RocksDB's own
//! lists of names.

use crate::options::contract_rules::{Bound, Contract, Rule, Scope};
use crate::options::contract_table::{ADDED_IN_11_12, CONTRACTS};
use crate::raw::c_consts::{
    OPTION_SCOPE_BLOCK_BASED, OPTION_SCOPE_CF, OPTION_SCOPE_DB, OPTION_SCOPE_PLAIN,
    OPTION_SCOPE_TABLE,
};
use crate::raw::error::{Error, ErrorKind, Result};
use crate::raw::options_handle::OptionsHandle;
use crate::raw::options_text::option_defaults;
use crate::raw::pairs::string_to_map;

/// Every row: the table's, then those of names the RocksDB built on added (none on 11.8.1).
fn rows() -> impl Iterator<Item = &'static Contract> {
    CONTRACTS.iter().chain(ADDED_IN_11_12)
}

/// The row for `name` in `scope`, if the table has one.
pub(crate) fn lookup(scope: Scope, name: &str) -> Option<&'static Contract> {
    rows().find(|row| row.scope == scope && row.name == name)
}

/// Whether the table checks the fields of `name`'s nested value one by one.
fn has_fields(scope: Scope, name: &str) -> bool {
    rows().any(|row| {
        row.scope == scope
            && row
                .name
                .strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('.'))
    })
}

/// Whether `value` (as RocksDB serializes it) is inside `bound`.
fn within(bound: &Bound, value: &str) -> bool {
    match *bound {
        Bound::Int { min, max } => value
            .trim()
            .parse::<i128>()
            .is_ok_and(|v| (min..=max).contains(&v)),
        Bound::Float { min, max } => value
            .trim()
            .parse::<f64>()
            .is_ok_and(|v| v.is_finite() && min <= v && v <= max),
        Bound::ZeroOrFloat { min, max } => value
            .trim()
            .parse::<f64>()
            .is_ok_and(|v| v == 0.0 || (v.is_finite() && min <= v && v <= max)),
        Bound::OneOf(values) => values.contains(&value),
        Bound::NoneOf(values) => names_none(values, value),
    }
}

/// Whether `value` (an object's id, alone or as the `id=` field of `{id=..;..}` or
/// `id=..;..`) names none of `values`.
fn names_none(values: &[&str], value: &str) -> bool {
    let value = value.trim();
    let fields = value
        .strip_prefix('{')
        .and_then(|v| v.strip_suffix('}'))
        .unwrap_or(value);
    let id = match fields.contains('=') {
        true => fields
            .split(';')
            .find_map(|f| f.trim().strip_prefix("id="))
            .unwrap_or("")
            .trim(),
        false => fields,
    };
    !values.contains(&id)
}

/// Why `value` breaks the contract of `name` in `scope`, as RocksDB will use it (`None`:
/// it keeps it). `by_name`: the value was asked by name, where typed-only and deprecated
/// names are refused whatever their value.
pub(crate) fn breach(scope: Scope, name: &str, value: &str, by_name: bool) -> Option<String> {
    let Some(row) = lookup(scope, name) else {
        return Some(format!(
            "{name}: RocksDB knows this {scope:?} option but pinrocks' option table \
             (src/options/contract_table.rs) does not classify it"
        ));
    };
    match row.rule {
        Rule::Allowed => None,
        Rule::Bounded(bound, why) => (!within(&bound, value))
            .then(|| format!("{name}={value}: outside {}: {why}", describe(&bound))),
        // A forced value is checked as a refused one: only pinrocks' own passes.
        Rule::Refused { keep, why } | Rule::Forced { value: keep, why } => {
            (value.trim() != keep).then(|| format!("{name}={value}: only {keep} is allowed: {why}"))
        }
        Rule::TypedOnly(setter) => {
            by_name.then(|| format!("{name}: set it with {setter}, not by name"))
        }
        Rule::Ignored => by_name.then(|| {
            format!(
                "{name}: deprecated, RocksDB 11.8.1 parses it and ignores it, so it would \
                 never be in force"
            )
        }),
    }
}

/// A bound in words, for an error message.
fn describe(bound: &Bound) -> String {
    match bound {
        Bound::Int { min, max } => format!("{min}..={max}"),
        Bound::Float { min, max } => format!("{min}..={max}"),
        Bound::ZeroOrFloat { min, max } => format!("0 or {min}..={max}"),
        Bound::OneOf(values) => values.join(" | "),
        Bound::NoneOf(values) => format!("anything but {}", values.join(" | ")),
    }
}

/// An integer as RocksDB's `ParseInt64` / `ParseUint64` read it (`std::stoll` of the
/// leading digits, then a `k`, `m`, `g` or `t` suffix shifting it), without their wrapping:
/// `-1` for an unsigned option is -1 here, outside every bound that starts at 0, where
/// RocksDB would read 2^64 - 1. `None` where RocksDB would throw (no digits).
fn rocksdb_int(value: &str) -> Option<i128> {
    let value = value.trim_start();
    let (negative, rest) = match value.as_bytes().first() {
        Some(b'-') => (true, &value[1..]),
        Some(b'+') => (false, &value[1..]),
        _ => (false, value),
    };
    let end = rest.bytes().take_while(u8::is_ascii_digit).count();
    let mut number: i128 = rest[..end].parse().ok()?;
    let shift = match rest.as_bytes().get(end) {
        Some(b'k' | b'K') => 10,
        Some(b'm' | b'M') => 20,
        Some(b'g' | b'G') => 30,
        Some(b't' | b'T') => 40,
        _ => 0,
    };
    number = number.checked_mul(1 << shift)?;
    Some(if negative { -number } else { number })
}

/// Whether a value asked by name (before RocksDB parses it: parsing alone may allocate by
/// it, `num_levels` sizes vectors) is inside `bound`. A value Rust cannot read as RocksDB
/// would is outside. One-of bounds are left to the check after parsing.
fn input_within(bound: &Bound, value: &str) -> bool {
    let float = || value.trim().parse::<f64>().ok();
    match *bound {
        Bound::Int { min, max } => rocksdb_int(value).is_some_and(|v| (min..=max).contains(&v)),
        Bound::Float { min, max } => float().is_some_and(|v| v.is_finite() && min <= v && v <= max),
        Bound::ZeroOrFloat { min, max } => {
            float().is_some_and(|v| v == 0.0 || (v.is_finite() && min <= v && v <= max))
        }
        Bound::OneOf(_) => true,
        Bound::NoneOf(values) => names_none(values, value),
    }
}

/// Where a value given to RocksDB's parser comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Asked {
    /// `set_by_name`, `set_from_string`, `set_options`, `set_db_options`: typed-only and
    /// deprecated names are refused, and a nested name must have a row of its own.
    ByName,
    /// An OPTIONS file, as RocksDB writes them: the names RocksDB serializes come back,
    /// typed-only or not, and an older file's deprecated names are ignored by RocksDB as
    /// they were; a typed-only name RocksDB never writes (`rate_limiter_bytes_per_sec`,
    /// `blob_cache`) was put there by hand, and is refused.
    File,
}

/// Why a value given to RocksDB's parser breaks its contract, before RocksDB parses it:
/// parsing alone may allocate by it (`num_levels` sizes vectors), and an object it makes
/// (a cache, a rate limiter) is never serialized, so no check after it would see it. At
/// any depth of a nested value (`compression_opts={max_dict_bytes=..}`,
/// `block_based_table_factory={block_cache=..}`, `table_factory.block_size`). `None`
/// where the check after parsing decides.
pub(crate) fn input_breach(scope: Scope, name: &str, value: &str, asked: Asked) -> Option<String> {
    // A table factory's fields are the table formats' options.
    let table_scopes: &[Scope] = match name.split('.').next().unwrap_or(name) {
        "block_based_table_factory" => &[Scope::BlockBased],
        "plain_table_factory" => &[Scope::Plain],
        "table_factory" => &[Scope::BlockBased, Scope::Plain],
        _ => &[],
    };
    let unknown = |name: &str| {
        (asked == Asked::ByName).then(|| {
            format!(
                "{name}: not an option pinrocks' table classifies (a nested option is set by \
                 its own name: `table_factory.block_size`, `compression_opts.level`)"
            )
        })
    };
    if let Some((_, field)) = name.split_once('.') {
        if !table_scopes.is_empty() {
            // `table_factory.BlockBasedTable.block_size` names the live object by its id
            // and would change it in place, before any check: only a field with a row.
            return match table_scopes.iter().find(|&&s| lookup(s, field).is_some()) {
                Some(&s) => input_breach(s, field, value, asked),
                None => unknown(name),
            };
        }
        if lookup(scope, name).is_none() {
            return unknown(name);
        }
    }
    if let Some(row) = lookup(scope, name) {
        match row.rule {
            Rule::TypedOnly(_) if asked == Asked::File && written_by_rocksdb(scope, name) => {}
            Rule::Ignored if asked == Asked::File => {}
            Rule::TypedOnly(_) | Rule::Ignored => return breach(scope, name, value, true),
            // By name only RocksDB's default itself, as it writes it: another value may
            // make an object (a NULL one included) that no check after parsing can read.
            Rule::Refused { keep, why } | Rule::Forced { value: keep, why }
                if asked == Asked::ByName && value.trim() != keep =>
            {
                return Some(format!("{name}={value}: only {keep:?} is allowed: {why}"))
            }
            Rule::Bounded(bound, why) if !input_within(&bound, value) => {
                return Some(format!(
                    "{name}={value}: outside {}: {why}",
                    describe(&bound)
                ))
            }
            _ => {}
        }
    }
    if !value.contains('=') {
        return None;
    }
    // Exactly one pair of outer braces: `{a={b=1};c=2}` keeps its inner value whole.
    let trimmed = value.trim();
    let inner = trimmed
        .strip_prefix('{')
        .and_then(|v| v.strip_suffix('}'))
        .unwrap_or(trimmed);
    let Ok(fields) = string_to_map(inner) else {
        return Some(format!(
            "{name}={value}: a nested value RocksDB cannot split"
        ));
    };
    fields.iter().find_map(|(field, inner)| {
        if field == "id" {
            None
        } else if table_scopes.is_empty() {
            input_breach(scope, &format!("{name}.{field}"), inner, asked)
        } else {
            match table_scopes.iter().find(|&&s| lookup(s, field).is_some()) {
                Some(&s) => input_breach(s, field, inner, asked),
                None => unknown(&format!("{name}.{field}")),
            }
        }
    })
}

/// Whether RocksDB writes `name` in an OPTIONS file (the names a default object of its
/// scope serializes): a typed-only name it writes comes back from every file.
fn written_by_rocksdb(scope: Scope, name: &str) -> bool {
    static WRITTEN: std::sync::OnceLock<Vec<(Scope, String)>> = std::sync::OnceLock::new();
    WRITTEN
        .get_or_init(|| {
            let mut names = Vec::new();
            for (scope, code) in [
                (Scope::Db, OPTION_SCOPE_DB),
                (Scope::Cf, OPTION_SCOPE_CF),
                (Scope::BlockBased, OPTION_SCOPE_BLOCK_BASED),
                (Scope::Plain, OPTION_SCOPE_PLAIN),
            ] {
                names.extend(defaults(code).into_iter().map(|(n, _)| (scope, n)));
            }
            names
        })
        .iter()
        .any(|(s, n)| *s == scope && n == name)
}

/// Each name and value of a default object of `scope` (an `OPTION_SCOPE_*`), as RocksDB
/// serializes it (empty if RocksDB could not).
fn defaults(scope: u32) -> Vec<(String, String)> {
    option_defaults(scope).unwrap_or_default()
}

/// Every breach among `pairs` of `scope` (serialized by RocksDB), nested values checked
/// field by field where the table classifies their fields: the first one found.
pub(crate) fn first_breach(
    scope: Scope,
    prefix: &str,
    pairs: &[(String, String)],
    by_name: bool,
) -> std::result::Result<(), (String, String, String)> {
    for (name, value) in pairs {
        let full = format!("{prefix}{name}");
        if let Some(why) = breach(scope, &full, value, by_name) {
            return Err((full, value.clone(), why));
        }
        // A nested value is `field=value;...`; one without `=` is an object's id alone
        // (`SkipListFactory`), whose fields RocksDB hands over as `name.field` rows.
        if has_fields(scope, &full) && value.contains('=') {
            let fields =
                string_to_map(value).map_err(|e| (full.clone(), value.clone(), e.to_string()))?;
            first_breach(scope, &format!("{full}."), &fields, by_name)?;
        }
    }
    Ok(())
}

/// The option a name writes: its first segment (`table_factory.block_size` writes
/// `table_factory`), with RocksDB's aliases (`kAlias` in `options/cf_options.cc`) read as
/// the option they write. Two pairs of one live change that write the same option are
/// applied in the order of RocksDB's hash map, which is no order pinrocks can check.
pub(crate) fn written_option(name: &str) -> &str {
    match name.split('.').next().unwrap_or(name) {
        "block_based_table_factory" | "plain_table_factory" => "table_factory",
        "memtable" => "memtable_factory",
        "memtable_veirfy_per_key_checksum_on_seek" => "memtable_verify_per_key_checksum_on_seek",
        root => root,
    }
}

/// Why the cuckoo table format is refused: what it does to writes in RocksDB 11.8.1.
pub(crate) const LOSES_WRITES: &str = "the cuckoo table format: RocksDB 11.8.1's cuckoo \
    builder drops every value whose length differs from the file's first (and every merge) \
    and still reports the flush done, so acknowledged writes would be lost";

/// The scope of a table factory's options, by the factory's name as RocksDB serializes it.
pub(crate) fn table_scope(factory: &str) -> Option<Scope> {
    match factory {
        "BlockBasedTable" => Some(Scope::BlockBased),
        "PlainTable" => Some(Scope::Plain),
        _ => None,
    }
}

/// The refusal of one option that breaks its contract.
fn refusal(name: String, value: String, why: String) -> Error {
    Error::OptionRejected {
        options: vec![(name, value)],
        kind: ErrorKind::InvalidArgument,
        message: why,
    }
}

/// Checks every option of `options` as RocksDB will use them (database, column family and
/// table options) against the table, and the rules that join two options: `Err` naming
/// the first that breaks its contract. Typed-only and deprecated names are refused where
/// they are set by name, not here.
pub(crate) fn check_options(options: &OptionsHandle) -> Result<()> {
    let (db, cf, table) = (
        options.serialized(OPTION_SCOPE_DB)?,
        options.serialized(OPTION_SCOPE_CF)?,
        options.serialized(OPTION_SCOPE_TABLE)?,
    );
    let checked = |scope, pairs: &[(String, String)]| {
        first_breach(scope, "", pairs, false).map_err(|(n, v, why)| refusal(n, v, why))
    };
    checked(Scope::Db, &db)?;
    checked(Scope::Cf, &cf)?;
    let get = |pairs: &[(String, String)], name: &str| {
        pairs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let factory = get(&cf, "table_factory");
    let Some(scope) = table_scope(&factory) else {
        return Err(refusal(
            "table_factory".to_owned(),
            factory,
            format!("{LOSES_WRITES} (pinrocks reads and writes BlockBasedTable and PlainTable)"),
        ));
    };
    checked(scope, &table)?;
    // RocksDB's own cross-option rules (the table factory's: a hash index needs a prefix
    // extractor, a format_version it can read back), which an open checks but a family
    // creation and a live change never do.
    options.validate().map_err(Error::into_option_refusal)?;
    plain_table_needs_extractor(scope, &get(&cf, "prefix_extractor"), |name| {
        get(&table, name)
    })?;
    zlib_blobs_compress(
        &get(&cf, "blob_compression_type"),
        &get(&cf, "blob_compression_opts"),
    )?;
    universal_merges_can_run(|name| get(&cf, name))
}

/// Universal compaction merges sorted runs `min_merge_width..=max_merge_width` at a time
/// (`PickCompactionToReduceSortedRuns`, a width below 2 read as 2): a minimum above the
/// maximum (a typed -1 reads as 4294967295) picks no merge of sorted runs ever, so runs
/// pile up to `level0_stop_writes_trigger` and writes stop until a size-amplification or
/// periodic compaction, if any, comes (nothing sanitizes the widths: a reopen does not
/// help).
fn universal_merges_can_run(cf: impl Fn(&str) -> String) -> Result<()> {
    if cf("compaction_style") != "kCompactionStyleUniversal" {
        return Ok(());
    }
    let universal =
        string_to_map(&cf("compaction_options_universal")).map_err(Error::into_option_refusal)?;
    let field = |name: &str| {
        universal
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.parse::<i64>().ok())
    };
    let (Some(min), Some(max)) = (field("min_merge_width"), field("max_merge_width")) else {
        return Ok(());
    };
    if min.max(2) > max {
        return Err(refusal(
            "compaction_options_universal.min_merge_width".to_owned(),
            min.to_string(),
            format!(
                "universal compaction with min_merge_width {min} above max_merge_width {max}: \
                 no merge of sorted runs is ever picked, and writes stop at the stop trigger"
            ),
        ));
    }
    Ok(())
}

/// Blob files compressed with zlib need a level and a strategy zlib's `deflateInit2` takes
/// (-1..=9, or RocksDB's default 32767, read as -1; 0..=4): RocksDB stores every blob
/// compressed whatever its compressor says (`LegacyForceBuiltinCompression`), so one that
/// declines fails every flush with Corruption, which stops writes, and a reopen replays the
/// WAL into the same failure. The other compressors clamp a level or ignore it.
fn zlib_blobs_compress(compression: &str, options: &str) -> Result<()> {
    if compression != "kZlibCompression" {
        return Ok(());
    }
    let fields = string_to_map(options).map_err(Error::into_option_refusal)?;
    let field = |name: &str| {
        let value = fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str());
        (
            value.unwrap_or_default(),
            value.and_then(|v| v.parse::<i64>().ok()),
        )
    };
    let (level, level_number) = field("level");
    let (strategy, strategy_number) = field("strategy");
    let why = |name: &str, value: &str, takes: &str| {
        Err(refusal(
            format!("blob_compression_opts.{name}"),
            value.to_owned(),
            format!(
                "blob_compression_opts.{name}={value} with kZlibCompression blobs: zlib takes \
                 {takes}; RocksDB stores blobs compressed whatever zlib says, so every flush \
                 would fail with Corruption and stop writes"
            ),
        ))
    };
    if !level_number.is_some_and(|l| l == 32767 || (-1..=9).contains(&l)) {
        return why(
            "level",
            level,
            "a level in -1..=9 (or 32767, RocksDB's default)",
        );
    }
    if !strategy_number.is_some_and(|s| (0..=4).contains(&s)) {
        return why("strategy", strategy, "a strategy in 0..=4");
    }
    Ok(())
}

/// A plain table with a hash index or the prefix encoding needs a prefix extractor: without
/// one RocksDB opens, then fails every flush (`NotSupported: PlainTable requires a prefix
/// extractor`), which stops writes and leaves a database that does not open again with its
/// own options.
fn plain_table_needs_extractor(
    scope: Scope,
    extractor: &str,
    table: impl Fn(&str) -> String,
) -> Result<()> {
    let none = extractor.is_empty() || extractor == "nullptr";
    let hashed = table("hash_table_ratio").parse::<f64>() != Ok(0.0);
    let prefix_encoded = table("encoding_type") == "kPrefix";
    if scope == Scope::Plain && none && (hashed || prefix_encoded) {
        return Err(refusal(
            "prefix_extractor".to_owned(),
            extractor.to_owned(),
            "plain_table with a hash index (hash_table_ratio not 0) or the prefix encoding \
             and no prefix extractor: RocksDB would fail the first flush and stop writes; \
             set one, or hash_table_ratio 0"
                .to_owned(),
        ));
    }
    Ok(())
}

/// One option RocksDB 11.8.1 parses and what pinrocks allows of it: a row of the option
/// table every path that sets options goes through (typed setters, [`set_by_name`],
/// OPTIONS files, opens, `set_options`, `set_db_options`).
///
/// [`set_by_name`]: crate::Options::set_by_name
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct OptionContract {
    /// Which of RocksDB's option maps holds it: `"db"`, `"cf"`, `"block_based"`,
    /// `"plain"` or `"cuckoo"`.
    pub scope: &'static str,
    /// RocksDB's name (`parent.field` inside a nested value).
    pub name: &'static str,
    /// Whether a live database changes it (`set_options` / `set_db_options`).
    pub mutable: bool,
    /// `"allowed"`, `"bounded"`, `"refused"`, `"typed only"`, `"forced"` (pinrocks sets
    /// its own value, the only one that opens) or `"ignored"`.
    pub class: &'static str,
    /// The bound or the reason, in words (empty for an allowed option).
    pub detail: String,
}

/// Every row of the option table, in its order.
///
/// ```
/// let contracts: Vec<_> = pinrocks::options::option_contracts().collect();
/// let inplace = contracts.iter().find(|c| c.name == "inplace_update_support").unwrap();
/// assert_eq!(inplace.class, "refused");
/// ```
pub fn option_contracts() -> impl Iterator<Item = OptionContract> {
    rows().map(|row| {
        let (class, detail) = match row.rule {
            Rule::Allowed => ("allowed", String::new()),
            Rule::Bounded(bound, why) => ("bounded", format!("{}: {why}", describe(&bound))),
            Rule::Refused { keep, why } => ("refused", format!("only {keep}: {why}")),
            Rule::TypedOnly(setter) => ("typed only", format!("set it with {setter}")),
            Rule::Forced { value, why } => (
                "forced",
                format!("pinrocks sets {value}, and only {value} opens: {why}"),
            ),
            Rule::Ignored => (
                "ignored",
                "deprecated: RocksDB 11.8.1 parses it and ignores it".to_owned(),
            ),
        };
        OptionContract {
            scope: match row.scope {
                Scope::Db => "db",
                Scope::Cf => "cf",
                Scope::BlockBased => "block_based",
                Scope::Plain => "plain",
                Scope::Cuckoo => "cuckoo",
            },
            name: row.name,
            mutable: row.mutable,
            class,
            detail,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raw::c_consts::OPTION_SCOPE_CUCKOO;
    use crate::raw::options_text::option_names;
    use std::collections::BTreeSet;

    const SCOPES: [(Scope, u32); 5] = [
        (Scope::Db, OPTION_SCOPE_DB),
        (Scope::Cf, OPTION_SCOPE_CF),
        (Scope::BlockBased, OPTION_SCOPE_BLOCK_BASED),
        (Scope::Plain, OPTION_SCOPE_PLAIN),
        (Scope::Cuckoo, OPTION_SCOPE_CUCKOO),
    ];

    /// What RocksDB lists for a default object of `scope`: its names (`mutable_only`: those
    /// `SetOptions` changes), or with `with_values` its serialized names and values.
    fn listed(scope: u32, mutable_only: bool, with_values: bool) -> Vec<(String, String)> {
        if with_values {
            return defaults(scope);
        }
        option_names(scope, mutable_only).unwrap()
    }

    /// A test that fails when RocksDB knows a name the table does not: every name each of
    /// RocksDB's option maps lists, and every field of every nested value it serializes.
    #[test]
    fn the_table_classifies_every_name_rocksdb_knows() {
        let mut missing = Vec::new();
        for (scope, code) in SCOPES {
            for (name, _) in listed(code, false, false) {
                if lookup(scope, &name).is_none() {
                    missing.push(format!("{scope:?} {name}"));
                }
            }
            for (name, value) in listed(code, false, true) {
                if !value.contains('=') {
                    continue;
                }
                for (field, _) in string_to_map(&value).unwrap() {
                    let full = format!("{name}.{field}");
                    if lookup(scope, &full).is_none() && has_fields(scope, &name) {
                        missing.push(format!("{scope:?} {full}"));
                    }
                }
            }
        }
        assert!(missing.is_empty(), "not classified: {missing:#?}");
    }

    #[test]
    fn mutability_is_rocksdb_s() {
        let mut wrong = Vec::new();
        for (scope, code) in SCOPES {
            let mutable: BTreeSet<String> = listed(code, true, false)
                .into_iter()
                .map(|(n, _)| n)
                .collect();
            for (name, _) in listed(code, false, false) {
                let row = lookup(scope, &name).expect("classified (the test above)");
                if row.mutable != mutable.contains(&name) {
                    wrong.push(format!("{scope:?} {name}: table says {}", row.mutable));
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "mutability differs from RocksDB's: {wrong:#?}"
        );
    }

    /// RocksDB's defaults keep every contract (an OPTIONS file of defaults loads), but where
    /// pinrocks sets its own (`Rule::Forced`, set as options are made or loaded).
    #[test]
    fn defaults_keep_every_contract() {
        for (scope, code) in SCOPES {
            let defaults: Vec<(String, String)> = listed(code, false, true)
                .into_iter()
                .filter(|(name, _)| {
                    !matches!(lookup(scope, name), Some(row) if matches!(row.rule, Rule::Forced { .. }))
                })
                .collect();
            if let Err((name, value, why)) = first_breach(scope, "", &defaults, false) {
                panic!("{scope:?} default {name}={value}: {why}");
            }
        }
    }

    #[test]
    fn one_row_per_name() {
        let mut seen = BTreeSet::new();
        for row in rows() {
            assert!(seen.insert((row.scope, row.name)), "twice: {row:?}");
        }
    }

    #[test]
    fn numbers_asked_by_name_read_as_rocksdb_reads_them() {
        assert_eq!(rocksdb_int("64"), Some(64));
        assert_eq!(rocksdb_int(" 16k"), Some(16 << 10));
        assert_eq!(rocksdb_int("1T"), Some(1 << 40));
        assert_eq!(rocksdb_int("-1"), Some(-1));
        assert_eq!(rocksdb_int("12abc"), Some(12));
        assert_eq!(rocksdb_int("abc"), None);
        assert_eq!(
            rocksdb_int("99999999999999999999999999999999999999999"),
            None
        );
        assert!(!input_within(&Bound::Int { min: 0, max: 1000 }, "-1"));
        assert!(!input_within(
            &Bound::Float { min: 0.1, max: 1.0 },
            "0x1p-40"
        ));
        let by_name = |scope, name, value| input_breach(scope, name, value, Asked::ByName);
        assert!(
            by_name(Scope::Cf, "num_levels", "2147483647").is_some(),
            "refused before RocksDB sizes vectors by it"
        );
        assert!(by_name(Scope::Cf, "block_based_table_factory", "{block_cache=1M}").is_some());
        assert!(by_name(Scope::Cf, "table_factory.block_size", "1T").is_some());
        assert!(by_name(Scope::Cf, "table_factory.BlockBasedTable.block_size", "1").is_some());
        assert!(by_name(
            Scope::Cf,
            "merge_operator.StringAppendOperator.delimiter",
            ","
        )
        .is_some());
        assert!(by_name(Scope::Cf, "compression_opts", "{max_dict_bytes=1T}").is_some());
        assert!(by_name(
            Scope::Cf,
            "block_based_table_factory",
            "{block_cache={capacity=1M;num_shard_bits=19};metadata_cache_options={partition_pinning=kAll}}"
        )
        .is_some());
        assert!(by_name(Scope::Cf, "block_based_table_factory", "{block_size=16k}").is_none());
        // From a file: what RocksDB writes loads; what it never writes does not.
        let file = |scope, name, value| input_breach(scope, name, value, Asked::File);
        assert!(file(Scope::Cf, "comparator", "leveldb.BytewiseComparator").is_none());
        assert!(file(Scope::Cf, "memtable_factory", "SkipListFactory").is_none());
        assert!(file(Scope::Db, "rate_limiter_bytes_per_sec", "1").is_some());
        assert!(file(Scope::Cf, "num_levels", "500000000").is_some());
    }

    #[test]
    fn bounds_read_rocksdb_s_forms() {
        assert!(within(&Bound::Int { min: 1, max: 8 }, "8"));
        assert!(!within(&Bound::Int { min: 1, max: 8 }, "9"));
        assert!(!within(&Bound::Int { min: 1, max: 8 }, "1k"));
        assert!(within(&Bound::Float { min: 0.0, max: 1.0 }, "0.500000"));
        assert!(!within(&Bound::Float { min: 0.0, max: 1.0 }, "nan"));
        assert!(within(
            &Bound::ZeroOrFloat { min: 0.1, max: 1.0 },
            "0.000000"
        ));
        assert!(!within(
            &Bound::ZeroOrFloat { min: 0.1, max: 1.0 },
            "0.000000000250"
        ));
        assert!(within(&Bound::OneOf(&["false"]), "false"));
    }

    #[test]
    fn an_object_is_named_by_its_whole_id() {
        let refused = Bound::NoneOf(&["sortlist", "MergeSortOperator"]);
        for named in [
            "sortlist",
            " MergeSortOperator",
            "{id=sortlist}",
            "id=sortlist;x=1",
        ] {
            assert!(!within(&refused, named), "{named}");
            assert!(!input_within(&refused, named), "{named}");
        }
        for other in ["sortlist_sum", "{id=uint64add}", "nullptr", "my.sortlist"] {
            assert!(within(&refused, other), "{other}");
        }
    }
}
