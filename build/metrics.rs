//! Every ticker, histogram and perf-context metric of the RocksDB being built, read from its
//! own sources, so that pinrocks' typed lists cannot drift from it: the tickers and
//! histograms from `include/rocksdb/statistics.h` (the enums: order, value, comment) and
//! `monitoring/statistics.cc` (their names), the perf metrics from `include/rocksdb/c.h`
//! (the ones the C API reads) with the comments of `include/rocksdb/perf_context.h`.
//!
//! Writes `metric_lists.rs` into `OUT_DIR`: one macro per list (`with_tickers!`,
//! `with_histograms!`, `with_perf_metrics!`) that hands the whole list, each entry
//! `Variant = value => "name", "CPP_NAME"` with its doc lines, to
//! `src/options/metrics.rs`'s `metric_enum!`.

use std::fmt::Write as _;
use std::path::Path;

/// The perf metrics c.h lists and `rocksdb_perfcontext_metric` has no case for (it reads them
/// as 0), read by rocksdb-c/options.cc's `pinrocks_perf_metric` instead.
const READ_BY_PINROCKS: &[&str] = &["rocksdb_blob_cache_read_byte"];

/// One enumerator: its C++ name, value and the comment above (or beside) it.
struct Entry {
    cpp: String,
    value: u32,
    comment: Vec<String>,
}

/// Writes `metric_lists.rs` into `out_dir` from the RocksDB tree at `rocksdb`.
pub fn generate(rocksdb: &Path, out_dir: &Path) {
    let read = |file: &str| {
        println!("cargo:rerun-if-changed={}", rocksdb.join(file).display());
        std::fs::read_to_string(rocksdb.join(file))
            .unwrap_or_else(|err| panic!("pinrocks: cannot read RocksDB's {file}: {err}"))
    };
    let statistics_h = read("include/rocksdb/statistics.h");
    let statistics_cc = read("monitoring/statistics.cc");
    let c_h = read("include/rocksdb/c.h");
    let perf_h = read("include/rocksdb/perf_context.h");

    let mut lists = String::new();
    for (list, cpp_enum, max, name_map) in [
        (
            "with_tickers",
            "enum Tickers",
            "TICKER_ENUM_MAX",
            "TickersNameMap = {",
        ),
        (
            "with_histograms",
            "enum Histograms",
            "HISTOGRAM_ENUM_MAX",
            "HistogramsNameMap = {",
        ),
    ] {
        let entries = enumerators(&statistics_h, cpp_enum, max);
        let names = name_map_of(&statistics_cc, name_map);
        let named: Vec<(Entry, String)> = entries
            .into_iter()
            .map(|entry| {
                let name = names
                    .iter()
                    .find(|(cpp, _)| *cpp == entry.cpp)
                    .unwrap_or_else(|| panic!("pinrocks: {} has no name in {name_map}", entry.cpp))
                    .1
                    .clone();
                (entry, name)
            })
            .collect();
        assert_eq!(
            named.len(),
            names.len(),
            "pinrocks: {name_map} names an unknown entry"
        );
        write_list(&mut lists, list, &named);
    }

    // The C API's perf metrics (`rocksdb_perfcontext_metric`), named as PerfContext's fields.
    let perf: Vec<(Entry, String)> = enumerators(
        &c_h,
        "rocksdb_user_key_comparison_count = 0",
        "rocksdb_total_metric_count",
    )
    .into_iter()
    .map(|mut entry| {
        let field = entry.cpp.trim_start_matches("rocksdb_").to_string();
        entry.comment = field_comment(&perf_h, &field);
        (entry, field)
    })
    .collect();
    write_list(&mut lists, "with_perf_metrics", &perf);
    // The C API reads a metric with a switch over the enum; one it forgot reads 0 forever.
    // rocksdb-c/options.cc (`pinrocks_perf_metric`) reads those itself: each must be known.
    let c_cc = read("db/c.cc");
    let reader = &c_cc[c_cc
        .find("uint64_t rocksdb_perfcontext_metric(")
        .expect("c.cc reads perf")..];
    let reader = &reader[..reader.find("\n}").expect("the switch ends")];
    for (entry, _) in &perf {
        let case = format!("case {}:", entry.cpp);
        if !reader.contains(&case) && !READ_BY_PINROCKS.contains(&entry.cpp.as_str()) {
            panic!(
                "pinrocks: RocksDB's C API does not read the perf metric {}: read it in \
                 rocksdb-c/options.cc's pinrocks_perf_metric and name it in READ_BY_PINROCKS",
                entry.cpp
            );
        }
    }

    std::fs::write(out_dir.join("metric_lists.rs"), lists).expect("cannot write metric_lists.rs");
}

/// The enumerators of the enum that starts at the line holding `start`, up to `end` (not
/// included), each with its comment lines. Values count up from 0; an explicit `= n` is
/// checked against the count (the lists are dense arrays in RocksDB).
fn enumerators(header: &str, start: &str, end: &str) -> Vec<Entry> {
    let begin = header
        .find(start)
        .unwrap_or_else(|| panic!("pinrocks: `{start}` not found in RocksDB's header"));
    let body = &header[begin..];
    // From the line after `enum X {`, or from the first enumerator itself.
    let body = match body.lines().next() {
        Some(first) if first.contains('{') => &body[first.len()..],
        _ => body,
    };
    let mut entries = Vec::new();
    let mut comment = Vec::new();
    for line in body.lines() {
        let line = line.trim();
        if line.starts_with(end) {
            return entries;
        }
        if let Some(text) = line.strip_prefix("//") {
            comment.push(text.trim().to_string());
            continue;
        }
        let code = line.split("//").next().unwrap_or("").trim();
        let Some(code) = code.strip_suffix(',') else {
            comment.clear();
            continue;
        };
        let (cpp, explicit) = match code.split_once('=') {
            Some((cpp, value)) => (cpp.trim(), Some(value.trim())),
            None => (code, None),
        };
        let value = entries.len() as u32;
        if let Some(explicit) = explicit {
            assert_eq!(
                explicit.parse::<u32>().ok(),
                Some(value),
                "pinrocks: {cpp} is not dense"
            );
        }
        if let Some((_, beside)) = line.split_once("//") {
            comment.push(beside.trim().to_string());
        }
        entries.push(Entry {
            cpp: cpp.to_string(),
            value,
            comment: std::mem::take(&mut comment),
        });
    }
    panic!("pinrocks: `{end}` not found after `{start}`");
}

/// The `{ENUMERATOR, "name"}` pairs of the name map starting at `start`.
fn name_map_of(source: &str, start: &str) -> Vec<(String, String)> {
    let begin = source
        .find(start)
        .unwrap_or_else(|| panic!("pinrocks: `{start}` not found in statistics.cc"));
    let body = &source[begin + start.len()..];
    let body = &body[..body.find("};").expect("the name map ends")];
    body.split('}')
        .filter_map(|pair| {
            let pair = pair
                .trim_start_matches([',', ' ', '\n'])
                .strip_prefix('{')?;
            let (cpp, name) = pair.split_once(',')?;
            let cpp = cpp.trim();
            let name = name.trim().strip_prefix('"')?.strip_suffix('"')?;
            Some((cpp.to_string(), name.to_string()))
        })
        .collect()
}

/// The comment of PerfContext's field `field`: the lines above it and the one beside it,
/// with its continuation lines (a `//` in the same column, on the lines below).
fn field_comment(perf_h: &str, field: &str) -> Vec<String> {
    let lines: Vec<&str> = perf_h.lines().collect();
    let declaration = format!("uint64_t {field};");
    let Some(at) = lines
        .iter()
        .position(|line| line.trim().starts_with(&declaration))
    else {
        return Vec::new();
    };
    let text = |line: &str| line.trim().trim_start_matches('/').trim().to_string();
    let mut comment: Vec<String> = lines[..at]
        .iter()
        .rev()
        .take_while(|line| line.trim().starts_with("//"))
        .map(|line| text(line))
        .collect();
    comment.reverse();
    // Lines that continue the comment beside the field above belong to that field.
    let first = at - comment.len();
    if first > 0 {
        let above = lines[first - 1];
        if above.contains("uint64_t") && above.find("//") == lines[first].find("//") {
            comment.clear();
        }
    }
    if let Some(column) = lines[at].find("//") {
        comment.push(text(&lines[at][column..]));
        for line in &lines[at + 1..] {
            if line.find("//") != Some(column) || !line[..column].trim().is_empty() {
                break;
            }
            comment.push(text(line));
        }
    }
    comment
}

/// `macro_rules! list` handing every entry to `metric_enum!` after the caller's tokens.
fn write_list(out: &mut String, list: &str, entries: &[(Entry, String)]) {
    writeln!(
        out,
        "macro_rules! {list} {{\n    ($($head:tt)*) => {{ metric_enum! {{ $($head)*"
    )
    .unwrap();
    for (entry, name) in entries {
        for line in entry.comment.iter().filter(|line| !line.is_empty()) {
            writeln!(out, "        /// {}", escape(line)).unwrap();
        }
        if entry.comment.iter().any(|line| !line.is_empty()) {
            writeln!(out, "        ///").unwrap();
        }
        writeln!(out, "        /// RocksDB: `{}`, named `{name}`.", entry.cpp).unwrap();
        writeln!(
            out,
            "        {} = {} => \"{name}\",",
            camel(&entry.cpp),
            entry.value
        )
        .unwrap();
    }
    writeln!(out, "    }} }};\n}}").unwrap();
}

/// `BLOCK_CACHE_MISS` (or `rocksdb_block_read_count`) as `BlockCacheMiss` (`BlockReadCount`).
fn camel(cpp: &str) -> String {
    cpp.trim_start_matches("rocksdb_")
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or(String::new(), |first| {
                first.to_ascii_uppercase().to_string() + &chars.as_str().to_ascii_lowercase()
            })
        })
        .collect()
}

/// A C++ comment line as Markdown that says what it said: no headings (`# of blocks`), links
/// or HTML tags made of its punctuation.
fn escape(line: &str) -> String {
    let mut text = String::new();
    for ch in line.chars() {
        match ch {
            '[' | ']' | '<' | '>' | '*' | '_' | '`' | '#' | '|' | '\\' => {
                text.push('\\');
                text.push(ch);
            }
            _ => text.push(ch),
        }
    }
    text.replace("http", "http\u{200b}")
}
