//! Typed reads of records: one record shape (`records.rs`: an id, a name, a list of lines,
//! a note) at about 64 B to 64 KiB, stored in each format pinrocks decodes (JSON, postcard,
//! rkyv validated, FlatBuffers verified, a fixed `ZeroCopy` layout), each read through a
//! `Table` from the block cache with two consumers (the id alone, every field) beside the
//! plain pinned read of the same bytes, all fifteen ways paired and interleaved
//! (`paired.rs`). The answer to "which format, at which size, and what does a decode cost
//! beside the read": each typed read's time, and its ratio to the pinned read of its bytes.
//! The allocations and instructions per read come from valgrind (`per_read`, the paths of
//! [`PATHS`]: `scripts/sweep.sh`).
//!
//! `sweep typed OUT [--quick]`: OUT/typed.md (also on stdout) and OUT/typed.svg.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use pinrocks::codec::realigned_copies;
use pinrocks::Db;

use crate::callgrind::counted;
use crate::paired::{self, Ratio, Read};
use crate::records::{self, Way, FORMATS, SIZES};
use crate::tiers;

/// The typed read paths `sweep per-read` counts: `typed_<format>_<consumer>`, the
/// consumer `id` or `every` (field, through a `Table`) or `stored` (every field of a
/// `Stored` value got before the count: its `get` alone, no read).
pub const PATHS: [&str; 15] = [
    "typed_json_id",
    "typed_json_every",
    "typed_json_stored",
    "typed_postcard_id",
    "typed_postcard_every",
    "typed_postcard_stored",
    "typed_rkyv_id",
    "typed_rkyv_every",
    "typed_rkyv_stored",
    "typed_flatbuffers_id",
    "typed_flatbuffers_every",
    "typed_flatbuffers_stored",
    "typed_fixed_id",
    "typed_fixed_every",
    "typed_fixed_stored",
];

/// The ways of one format: its bytes read plain, then typed with each consumer.
const WAYS: [&str; 3] = ["pinned", "id", "every field"];

/// One format's database at one size.
struct Stored {
    format: &'static str,
    db: Db,
    bytes: usize,
    _dir: tempfile::TempDir,
}

fn open(format: &'static str, lines: usize, count: usize) -> Stored {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&tiers::pinrocks_options(), dir.path()).unwrap();
    let bytes = records::populate(&db, format, lines, count);
    tiers::settle_pinrocks(&db, count);
    Stored {
        format,
        db,
        bytes,
        _dir: dir,
    }
}

/// What one format measured at one size.
struct Row {
    size: usize,
    format: &'static str,
    bytes: usize,
    /// Of the reads of rkyv's archives, the share that RocksDB's pin left misaligned for
    /// rkyv's aligned format (read on a copy).
    copied: Option<f64>,
    /// `ns[way]` per round, ways as [`WAYS`].
    ns: Vec<Vec<f64>>,
}

fn measure(size: usize, quick: bool, plan: (usize, Duration)) -> Vec<Row> {
    let lines = records::lines_for(size);
    // As many keys as the largest format (JSON, about 45 bytes a line) allows in 256 MiB.
    let count = if quick {
        16
    } else {
        tiers::key_count(lines * 48 + 96)
    };
    let keys = tiers::random_keys(count);
    let stored: Vec<Stored> = FORMATS.iter().map(|f| open(f, lines, count)).collect();
    let mut ways: Vec<records::TypedRead<'_>> = Vec::new();
    let mut copied = Vec::new();
    for s in &stored {
        ways.push(records::pinned_read(&s.db));
        for every in [false, true] {
            let mut read = records::typed_read(&s.db, s.format, lines, Way::Table { every });
            for i in [0, count / 2, count - 1] {
                let got = read(&tiers::key(i));
                assert_eq!(got, records::expected(i, lines, every), "{}", s.format);
            }
            ways.push(read);
        }
        // The stored way, which per-read counts: records 1, then 0, whatever the key.
        let mut kept = records::typed_read(&s.db, s.format, lines, Way::Stored { count: 2 });
        for i in [1, 0] {
            assert_eq!(kept(&[]), records::expected(i, lines, true), "{}", s.format);
        }
        copied.push((s.format == "rkyv").then(|| {
            let before = realigned_copies();
            let mut read = records::typed_read(&s.db, s.format, lines, Way::Table { every: false });
            for key in &keys {
                read(key);
            }
            (realigned_copies() - before) as f64 / keys.len() as f64
        }));
    }
    let mut reads: Vec<Read<'_>> = ways.iter_mut().map(|w| &mut **w as Read<'_>).collect();
    let (rounds, _) = paired::run(&mut reads, &keys, plan.0, plan.1);
    let mut ns = rounds.ns.into_iter();
    stored
        .iter()
        .zip(copied)
        .map(|(s, copied)| Row {
            size,
            format: s.format,
            bytes: s.bytes,
            copied,
            ns: (0..WAYS.len()).map(|_| ns.next().unwrap()).collect(),
        })
        .collect()
}

fn table(rows: &[Row], plan: (usize, Duration)) -> String {
    let mut out = String::from(
        "| record | format | bytes | pinned read | id | every field | id / pinned | every field / pinned |\n\
         |---|---|---:|---:|---:|---:|---|---|\n",
    );
    for row in rows {
        let ns = |i: usize| paired::median(&mut row.ns[i].clone());
        let ratio = |i: usize| {
            let r = Ratio::of(&row.ns[i], &row.ns[0]);
            format!(
                "{:.2}x [{:.2}-{:.2}]{} ({:.2} / {:.2})",
                r.median,
                r.low,
                r.high,
                if r.is_clear() { "" } else { " ~" },
                r.first_half,
                r.second_half
            )
        };
        let format = match row.copied {
            Some(share) => format!("{} ({:.0}% copied)", row.format, share * 100.0),
            None => row.format.to_string(),
        };
        out += &format!(
            "| {} | {format} | {} | {:.0} ns | {:.0} ns | {:.0} ns | {} | {} |\n",
            crate::report::size_name(row.size),
            row.bytes,
            ns(0),
            ns(1),
            ns(2),
            ratio(1),
            ratio(2),
        );
    }
    let rounds = plan
        .0
        .next_multiple_of(paired::cycle(FORMATS.len() * WAYS.len()));
    out += &format!(
        "\n{rounds} rounds of {} ms per way and size, the {} ways of a size ({} per format: \
         {WAYS:?}) interleaved in a balanced order (Williams). Records from the block cache \
         (flushed, compacted, every block cached), read through a `Table` with the format's \
         codec: \"id\" reads the id alone, \"every field\" sums every number and both names' \
         lengths; \"pinned read\" is the value's length through `get_pinned`, the read each \
         typed read adds its decode to. Record: the rkyv archive's size, about; bytes: this \
         format's, on average; \"copied\": rkyv's archives that the pin left misaligned for \
         its aligned format, read on a copy. \"x / pinned\": the typed read's time over the \
         pinned read's, median of per-round ratios [95% bootstrap interval] (first half / \
         second half); `~`: the interval includes 1.\n",
        plan.1.as_millis(),
        FORMATS.len() * WAYS.len(),
        WAYS.len(),
    );
    out
}

pub fn main(out_dir: &Path, quick: bool) {
    let plan = if quick {
        (2, Duration::from_millis(1))
    } else {
        (30, Duration::from_millis(4))
    };
    let sizes = if quick { &SIZES[..2] } else { &SIZES[..] };
    let mut rows = Vec::new();
    for size in crate::progress::steps("typed", sizes.iter().copied()) {
        rows.extend(measure(size, quick, plan));
    }
    let report = table(&rows, plan);
    let mut points: BTreeMap<String, Vec<(usize, f64, f64, f64)>> = BTreeMap::new();
    for row in &rows {
        for (way, name) in [(2, "every field"), (0, "pinned read")] {
            let mut ns = row.ns[way].clone();
            let (low, high) = paired::bootstrap_interval(&ns, 2000, 0x5eed);
            let point = (row.size, paired::median(&mut ns), low, high);
            points
                .entry(format!("{}, {name}", row.format))
                .or_default()
                .push(point);
        }
    }
    // The pinned reads of the formats differ only by their bytes: rkyv's stands for them.
    points.retain(|name, _| !name.ends_with("pinned read") || name.starts_with("rkyv"));
    let named: BTreeMap<&str, Vec<(usize, f64, f64, f64)>> = points
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    std::fs::create_dir_all(out_dir).unwrap();
    std::fs::write(out_dir.join("typed.md"), &report).unwrap();
    std::fs::write(
        out_dir.join("typed.svg"),
        crate::plot::plot(
            "Typed reads of every field, by format, against the record's size (block cache; \
             bars: 95% interval of the median)",
            "ns per read",
            &named,
            &crate::plot::ticks(&rows.iter().map(|r| r.size).collect::<Vec<_>>(), |s| {
                crate::report::size_name(s)
            }),
        ),
    )
    .unwrap();
    print!("{report}");
}

/// `sweep per-read typed_<format>_<id|every|stored> SIZE READS`: one warm-up read, then
/// READS typed reads of records of about SIZE bytes from the block cache (or `get`s of
/// stored ones), for valgrind's counts.
pub fn per_read(name: &str, size: usize, reads: usize) -> u64 {
    let (format, consumer) = name
        .strip_prefix("typed_")
        .and_then(|rest| rest.rsplit_once('_'))
        .unwrap_or_else(|| panic!("not a typed path: {name}"));
    let format = FORMATS
        .iter()
        .find(|f| **f == format)
        .unwrap_or_else(|| panic!("no format {format:?}"));
    let count = 16;
    let way = match consumer {
        "id" => Way::Table { every: false },
        "every" => Way::Table { every: true },
        "stored" => Way::Stored { count },
        other => panic!("no consumer {other:?} (id, every, stored)"),
    };
    let lines = records::lines_for(size);
    let keys = tiers::random_keys(count);
    let stored = open(format, lines, count);
    let mut read = records::typed_read(&stored.db, format, lines, way);
    counted(reads, |i| read(&keys[i % keys.len()]))
}
