//! The sweep on your own settings: RocksDB options (an OPTIONS file a database of yours
//! wrote, or an option string), value sizes (a list, or a file of observed sizes whose
//! quantiles the sweep measures), and the regimes to run. Read from the environment, so the
//! one command stays `scripts/sweep.sh`:
//!
//! * `PINROCKS_OPTIONS_FILE=path/OPTIONS-000007`: the database and default column family
//!   options of that file, applied to both libraries' databases after the sweep's own (its
//!   block cache, which the regimes need, stays unless the file's table options name
//!   another setting of it);
//! * `PINROCKS_OPTIONS="k=v;k=v"`: an option string, applied after the file;
//! * `PINROCKS_SIZES=8,4096` or `PINROCKS_SIZES_FILE=path`: sizes, or a file of value sizes
//!   (one a line, `#` comments), measured at its 10th, 50th, 90th and 99th percentiles and
//!   its largest;
//! * `PINROCKS_REGIMES=memtable,block_cache,page_cache,concurrent`: the regimes of the
//!   timing run (all by default).
//!
//! The parsing is pure functions, tested on small inputs by `tests/sweep_config.rs`.

/// RocksDB's option string for the `[DBOptions]`, `[CFOptions "default"]` and
/// `[TableOptions/BlockBasedTable "default"]` sections of an OPTIONS file (the table
/// options as `block_based_table_factory={...}`). Settings RocksDB writes as objects it
/// cannot take from a string (`nullptr` values, the comparator, the merge operator, the
/// table factory's name, the cache's own settings) are left out, as are other sections
/// (other column families, `[Version]`).
pub fn options_string_from_file(text: &str) -> String {
    let mut plain = Vec::new();
    let mut table = Vec::new();
    let mut section = "";
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with('[') {
            section = match line {
                "[DBOptions]" | "[CFOptions \"default\"]" => "plain",
                "[TableOptions/BlockBasedTable \"default\"]" => "table",
                _ => "",
            };
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let (key, value) = (key.trim(), value.trim());
        let skipped = value == "nullptr" || value.is_empty() || SKIPPED.contains(&key);
        match section {
            "plain" if !skipped => plain.push(format!("{key}={value}")),
            "table" if !skipped => table.push(format!("{key}={value}")),
            _ => {}
        }
    }
    if !table.is_empty() {
        plain.push(format!("block_based_table_factory={{{}}}", table.join(";")));
    }
    plain.join(";")
}

/// Settings an OPTIONS file records that are objects, names of objects, or facts about the
/// file rather than settings one can set from a string.
const SKIPPED: [&str; 13] = [
    "comparator",
    "merge_operator",
    "compaction_filter",
    "compaction_filter_factory",
    "table_factory",
    "memtable_factory",
    "prefix_extractor",
    "sst_partitioner_factory",
    "blob_cache",
    "persist_user_defined_timestamps",
    "wal_dir",
    "db_log_dir",
    "db_host_id",
];

/// The sizes to measure for a file of observed value sizes (one a line; blank lines and
/// `#` comments skipped): its 10th, 50th, 90th and 99th percentiles (nearest rank) and its
/// largest, without repeats. An error names the first line that is not a size.
pub fn sizes_from_distribution(text: &str) -> Result<Vec<usize>, String> {
    let mut sizes = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let size: usize = line
            .parse()
            .map_err(|_| format!("line {}: {line:?} is not a size in bytes", n + 1))?;
        sizes.push(size.max(1));
    }
    if sizes.is_empty() {
        return Err("no sizes in the file".into());
    }
    sizes.sort_unstable();
    let rank = |q: f64| sizes[((q * sizes.len() as f64).ceil() as usize).clamp(1, sizes.len()) - 1];
    let mut picked: Vec<usize> = [0.10, 0.50, 0.90, 0.99, 1.0].map(rank).to_vec();
    picked.dedup();
    Ok(picked)
}

/// The regimes of the timing run.
pub const REGIMES: [&str; 4] = ["memtable", "block_cache", "page_cache", "concurrent"];

/// Which regimes a comma-separated list names (every one for `None`); an unknown name is an
/// error that lists the known ones.
pub fn regimes(list: Option<&str>) -> Result<Vec<&'static str>, String> {
    let Some(list) = list else {
        return Ok(REGIMES.to_vec());
    };
    list.split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(|name| {
            REGIMES
                .iter()
                .find(|r| **r == name)
                .copied()
                .ok_or_else(|| format!("unknown regime {name:?}: one of {REGIMES:?}"))
        })
        .collect()
}
