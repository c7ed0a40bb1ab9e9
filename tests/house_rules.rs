//! The rules of the house that a reader relies on, checked on the source itself:
//!
//! * `src/` is layered by folder, and the layout table (`docs/layout.md`, linked from the
//!   README) is the one statement of
//!   the layers (bottom first): each file imports only from its own layer or the layers
//!   below, names other layers by module path (`crate::raw::error::Error`, not the
//!   crate root's re-export), and no two files import each other in a circle.
//! * that table names every folder and file of `src/`, and only those, and every
//!   file of the folders it describes file by file (`rocksdb-c/`, `benches/sweep/`,
//!   `tests/`); `scripts/README.md` names every script.
//! * no source file (Rust, C, C++) is over [`MAX_LINES`] lines unless its first comment
//!   says why.
//! * `src/raw/` is the boundary, as heed's `lmdb_ffi.rs` is for LMDB: no file outside it
//!   names the bindings (`ffi::`, but in the signature of a public `as_raw` escape hatch)
//!   or reads an errptr by hand (`ErrPtr`: `raw/`'s `with_code` and `with_errptr` own that
//!   dance); what the layers above name of the C API goes through `raw/c_consts.rs`
//!   (constants only) and `raw/c_types.rs` (types only), checked against the bindings.
//! * each read tier is one C entry point whatever the source (`pinrocks_read_*` over a
//!   `pinrocks_read_source`): no C function takes read options and a transaction or batch.
//!
//! * a public type's methods live in its home file, and the files of the facets that belong
//!   to a layer above it are named in `docs/layout.md`'s table of where each type's methods
//!   are.
//! * every typed setter of `Options` says its scope (database, column family) and the names
//!   RocksDB gives what it sets, as the option table has them.
//!
//! Long because: one test per rule, each with the scan of the source it needs; a reader
//! checks the rules of the house in one place.
//!
//! That every `unsafe` block and `unsafe impl` says why it holds is the compiler's job
//! (`#![deny(clippy::undocumented_unsafe_blocks)]` in lib.rs covers both).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 500;
/// The words a long file's first comment uses to say why it is long.
const LONG_BECAUSE: &str = "Long because";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `src/`, as its module path (`raw::error`, `codec`, `lib`).
fn source_files() -> BTreeMap<String, PathBuf> {
    fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
            if path.is_dir() {
                walk(&path, &format!("{prefix}{name}::"), out);
            } else if path.extension().and_then(|e| e.to_str()) == Some("rs") {
                let module = if name == "mod" {
                    prefix.trim_end_matches("::").to_owned()
                } else {
                    format!("{prefix}{name}")
                };
                out.insert(module, path);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&root().join("src"), "", &mut out);
    out
}

/// The code of a file, comments removed (line comments and doc comments alike).
fn code_of(text: &str) -> String {
    text.lines()
        .map(|line| line.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Each module path a file names through `crate::`, down to the longest known module. The
/// file is read whole, so a `crate::{..}` group over several lines counts each item.
fn imports(text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let code = code_of(text);
    let mut names = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        let group: Vec<&str> = match rest.strip_prefix('{') {
            // `crate::{a::b, c::D}`: each item.
            Some(inner) => inner.split('}').next().unwrap().split(',').collect(),
            None => vec![rest],
        };
        for item in group {
            let path: String = item
                .trim()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            if path.is_empty() {
                continue; // a trailing comma
            }
            let mut best = None;
            let mut prefix = String::new();
            for segment in path.split("::") {
                if !prefix.is_empty() {
                    prefix.push_str("::");
                }
                prefix.push_str(segment);
                if modules.contains(&prefix) {
                    best = Some(prefix.clone());
                }
            }
            names.insert(best.unwrap_or_else(|| format!("<root>::{path}")));
        }
    }
    names
}

/// The `## Layout` section of `docs/layout.md` (linked from the README), up to the next
/// section.
fn layout_section() -> String {
    let layout = std::fs::read_to_string(root().join("docs/layout.md")).unwrap();
    let section = layout
        .split("\n## Layout\n")
        .nth(1)
        .expect("docs/layout.md has a ## Layout section");
    section.split("\n## ").next().unwrap().to_owned()
}

/// The README's layout table: the rows for `src/`, in order, each a path and its text.
fn readme_layout() -> Vec<(String, String)> {
    layout_section()
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("| `src/")?;
            let (path, text) = rest.split_once("` |")?;
            Some((path.to_owned(), text.to_owned()))
        })
        .collect()
}

/// The layers bottom first, as the README lists them: `codec`, `raw`, ...
fn layers() -> Vec<String> {
    readme_layout()
        .into_iter()
        .map(|(path, _)| {
            path.trim_end_matches('/')
                .trim_end_matches(".rs")
                .to_owned()
        })
        .filter(|layer| layer != "lib")
        .collect()
}

fn layer_of(module: &str) -> &str {
    module.split("::").next().unwrap()
}

#[test]
fn the_readme_layout_names_every_folder_and_file_of_src() {
    let files = source_files();
    let rows = readme_layout();
    assert!(rows.len() >= 5, "README layout table not found: {rows:?}");
    let mut named = BTreeSet::new();
    for (path, text) in &rows {
        if let Some(folder) = path.strip_suffix('/') {
            let on_disk: BTreeSet<String> = files
                .keys()
                .filter(|m| m.starts_with(&format!("{folder}::")))
                .map(|m| format!("{}.rs", m.rsplit("::").next().unwrap()))
                .collect();
            let listed: BTreeSet<String> = text
                .split('`')
                .skip(1)
                .step_by(2)
                .filter(|w| w.ends_with(".rs"))
                .map(str::to_owned)
                .collect();
            assert_eq!(
                listed, on_disk,
                "README layout row for src/{folder}/ and the files in it disagree"
            );
            named.insert(folder.to_owned());
            named.extend(
                on_disk
                    .iter()
                    .map(|f| format!("{folder}::{}", &f[..f.len() - 3])),
            );
        } else {
            let module = path.trim_end_matches(".rs");
            assert!(
                files.contains_key(module),
                "README names src/{path}, which is not there"
            );
            named.insert(module.to_owned());
        }
    }
    for module in files.keys() {
        assert!(
            named.contains(module),
            "src/ has {module}, which the README's layout table does not name"
        );
    }
}

#[test]
fn each_file_imports_only_its_own_layer_and_the_layers_below() {
    let files = source_files();
    let modules: BTreeSet<String> = files.keys().cloned().collect();
    let layers = layers();
    let rank = |module: &str| layers.iter().position(|l| l == layer_of(module));
    let mut wrong = Vec::new();
    for (module, path) in &files {
        if module == "lib" {
            continue; // the top: it mounts the layers and re-exports the API
        }
        let own = rank(module).unwrap_or_else(|| panic!("{module} is in no README layer"));
        for import in imports(&std::fs::read_to_string(path).unwrap(), &modules) {
            match rank(&import) {
                Some(theirs) if theirs <= own => {}
                Some(_) => wrong.push(format!("{module} imports {import}, a layer above it")),
                None => wrong.push(format!(
                    "{module} names {import}: name a layer's module instead of the crate root"
                )),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layering:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_two_files_import_each_other_in_a_circle() {
    let files = source_files();
    let modules: BTreeSet<String> = files.keys().cloned().collect();
    let graph: BTreeMap<String, BTreeSet<String>> = files
        .iter()
        .map(|(m, p)| {
            let mut edges = imports(&std::fs::read_to_string(p).unwrap(), &modules);
            edges.remove(m);
            // A folder's mod.rs mounts its files; that is not an import.
            edges.retain(|e| !(e.starts_with(&format!("{m}::"))));
            (m.clone(), edges)
        })
        .collect();
    assert!(graph.contains_key("raw::ffi") && graph.contains_key("db::handles"));
    fn visit<'a>(
        module: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) {
        if let Some(start) = path.iter().position(|m| *m == module) {
            panic!("import circle: {:?}", &path[start..]);
        }
        if !done.insert(module) {
            return;
        }
        path.push(module);
        for next in graph.get(module).into_iter().flatten() {
            if graph.contains_key(next) {
                visit(next, graph, path, done);
            }
        }
        path.pop();
    }
    let mut done = BTreeSet::new();
    for module in graph.keys() {
        visit(module, &graph, &mut Vec::new(), &mut done);
    }
}

/// Every source file under `dir` (recursively): Rust, C and C++.
fn sources_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources_under(&path, out);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("rs" | "h" | "cc")
        ) {
            out.push(path);
        }
    }
}

/// A file's first comment: its leading `//` lines, or its leading `/* .. */` block.
fn first_comment(text: &str) -> String {
    if text.starts_with("/*") {
        return text.split("*/").next().unwrap().to_owned();
    }
    text.lines()
        .take_while(|l| l.starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn long_files_say_why_in_their_first_comment() {
    let mut files = Vec::new();
    for dir in [
        "src",
        "tests",
        "benches",
        "examples",
        "rocksdb-c",
        "fuzz/fuzz_targets",
    ] {
        sources_under(&root().join(dir), &mut files);
    }
    assert!(files.len() > 80, "only {} source files found", files.len());
    let mut long = Vec::new();
    for path in files {
        if path.ends_with("src/raw/ffi.rs") {
            continue; // the generated bindings are included, not written
        }
        let text = std::fs::read_to_string(&path).unwrap();
        if text.lines().take(5).any(|l| l.trim() == "// @generated") {
            continue; // a generator's output (flatc's), not written by hand
        }
        let lines = text.lines().count();
        if lines > MAX_LINES && !first_comment(&text).contains(LONG_BECAUSE) {
            let shown = path.strip_prefix(root()).unwrap().display().to_string();
            long.push(format!("{shown}: {lines} lines"));
        }
    }
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines whose first comment does not say \"{LONG_BECAUSE}\":\n{}",
        long.join("\n")
    );
}

/// The README's layout row for `path`.
fn readme_row(path: &str) -> String {
    let prefix = format!("| `{path}` |");
    layout_section()
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("README layout has no row for {path}"))
        .to_owned()
}

/// The names in backticks in `text`.
fn backticked(text: &str) -> BTreeSet<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_readme_rows_of_described_folders_name_each_of_their_files() {
    for folder in ["rocksdb-c/", "benches/sweep/", "tests/"] {
        let named = backticked(&readme_row(folder));
        for entry in std::fs::read_dir(root().join(folder)).unwrap() {
            let entry = entry.unwrap();
            let mut name = entry.file_name().into_string().unwrap();
            if entry.path().is_dir() {
                name.push('/');
            }
            assert!(
                named.contains(&name),
                "docs/layout.md row for {folder} does not name {name}"
            );
        }
    }
    // The published package carries no scripts (Cargo.toml's include list): nothing to name.
    if !root().join("scripts").is_dir() {
        return;
    }
    let index = std::fs::read_to_string(root().join("scripts/README.md")).unwrap();
    let named = backticked(&index);
    for entry in std::fs::read_dir(root().join("scripts")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name != "README.md" {
            assert!(
                named.contains(&name),
                "scripts/README.md does not name {name}"
            );
        }
    }
}

/// Uses of `needle` in the code of `text`; for `ffi::`, of pinrocks' bindings only (not
/// `std::ffi::`), outside the signature of a public `as_raw` (the escape hatch hands out
/// the C API's own type, by design).
fn uses_of(text: &str, needle: &str) -> usize {
    code_of(text)
        .lines()
        .filter(|line| needle != "ffi::" || !line.contains("pub fn as_raw("))
        .map(|line| {
            line.match_indices(needle)
                .filter(|(i, _)| {
                    let before = &line[..*i];
                    needle != "ffi::"
                        || !["std::", "core::", "unix::"]
                            .iter()
                            .any(|p| before.ends_with(p))
                })
                .count()
        })
        .sum()
}

#[test]
fn the_bindings_are_named_in_raw_only() {
    for (module, path) in source_files() {
        if module == "raw" || module.starts_with("raw::") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (needle, instead) in [
            ("ffi::", "put the call in src/raw/ and call that"),
            (
                "ErrPtr",
                "call through raw::error::with_code or with_errptr, in src/raw/",
            ),
        ] {
            let uses = uses_of(&text, needle);
            assert_eq!(
                uses,
                0,
                "{}: {uses} use(s) of {needle}: {instead}",
                path.display()
            );
        }
    }
}

/// The names a `pub(crate) use crate::raw::ffi::{..}` list of `text` re-exports (the names
/// in the bindings, before any `as`).
fn reexported(text: &str) -> Vec<String> {
    const USE: &str = "use crate::raw::ffi::";
    let code = code_of(text);
    let mut names = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find(USE) {
        let start = from + at + USE.len();
        let end = start + code[start..].find(';').unwrap();
        let list = code[start..end]
            .trim_start_matches('{')
            .trim_end_matches('}');
        for item in list.split(',') {
            if let Some(name) = item.split_whitespace().next() {
                names.push(name.to_owned());
            }
        }
        from = end;
    }
    names
}

#[test]
fn the_curated_lists_hold_constants_and_types_only() {
    let bindings = std::fs::read_to_string(Path::new(env!("OUT_DIR")).join("bindings.rs")).unwrap();
    let declared = |prefix: &str, name: &str| {
        bindings.contains(&format!("{prefix}{name}:"))
            || bindings.contains(&format!("{prefix}{name} "))
            || bindings.contains(&format!("{prefix}{name}\n"))
    };
    let raw = root().join("src/raw");
    let consts = reexported(&std::fs::read_to_string(raw.join("c_consts.rs")).unwrap());
    assert!(
        consts.len() > 50,
        "c_consts.rs re-exports {} names",
        consts.len()
    );
    for name in &consts {
        assert!(
            declared("pub const ", name),
            "c_consts.rs re-exports {name}, not a constant"
        );
    }
    let types = reexported(&std::fs::read_to_string(raw.join("c_types.rs")).unwrap());
    assert!(
        types.len() > 10,
        "c_types.rs re-exports {} names",
        types.len()
    );
    for name in &types {
        assert!(
            declared("pub struct ", name) || declared("pub type ", name),
            "c_types.rs re-exports {name}, not a type"
        );
    }
}

/// The declarations of the C headers of `rocksdb-c/`, comments removed, one per item.
fn c_declarations() -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(root().join("rocksdb-c")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "h") {
            let text = std::fs::read_to_string(&path).unwrap();
            let mut code = String::new();
            for (i, part) in text.split("/*").enumerate() {
                code.push_str(if i == 0 {
                    part
                } else {
                    part.split_once("*/").map_or("", |(_, after)| after)
                });
            }
            let code: String = code
                .lines()
                .map(|line| line.split("//").next().unwrap())
                .filter(|line| !line.trim_start().starts_with('#'))
                .collect::<Vec<_>>()
                .join(" ");
            out.extend(
                code.split([';', '{', '}'])
                    .map(|d| d.split_whitespace().collect::<Vec<_>>().join(" ")),
            );
        }
    }
    out
}

#[test]
fn each_read_tier_has_one_entry_point_whatever_the_source() {
    // A read entry point per source (one that takes read options and a transaction or a
    // batch, beside the database's) is what `pinrocks_read_source` replaced: a new source is a case in
    // rocksdb-c/read_source.h, not a new set of calls.
    let declarations = c_declarations();
    let per_source: Vec<&String> = declarations
        .iter()
        .filter(|d| {
            d.contains("const rocksdb_readoptions_t*")
                && (d.contains("rocksdb_transaction_t") || d.contains("rocksdb_writebatch_wi_t"))
        })
        .collect();
    assert!(
        per_source.is_empty(),
        "reads of one source: {per_source:#?}"
    );
    let mut tiers: Vec<&str> = declarations
        .iter()
        .filter(|d| d.contains("(const pinrocks_read_source* source"))
        .filter_map(|d| d.split('(').next()?.split_whitespace().last())
        .map(|name| name.trim_start_matches('*'))
        .collect();
    tiers.sort_unstable();
    assert_eq!(
        tiers,
        [
            "pinrocks_read_entity_handle",
            "pinrocks_read_entity_multi",
            "pinrocks_read_entity_pinned",
            "pinrocks_read_handle",
            "pinrocks_read_iterator",
            "pinrocks_read_multi",
            "pinrocks_read_pinned",
        ]
    );
}

/// The options RocksDB 11.8.1 has no name for in its option maps (so not in
/// `option_contracts`), with the struct that holds each (include/rocksdb/options.h).
const UNNAMED_OPTIONS: &[(&str, &str)] = &[
    ("db", "write_buffer_manager"),
    ("db", "sst_file_manager"),
    ("db", "row_cache"),
    ("db", "info_log"),
    ("db", "db_paths"),
    ("cf", "cf_paths"),
];

#[test]
fn every_options_setter_says_its_scope_as_the_option_table_does() {
    // Each `Options` setter (a `setter!` or a method that returns `&mut Self`) ends its
    // documentation with "Scope: database (`name`, ..)", "column family (..)" or "column
    // family's block-based table (..)": what a user reads to tell a database option from a
    // family's, checked against the table every path that sets options goes through.
    let known: BTreeSet<(String, String)> = pinrocks::options::option_contracts()
        .map(|row| (row.scope.to_owned(), row.name.to_owned()))
        .chain(
            UNNAMED_OPTIONS
                .iter()
                .map(|&(scope, name)| (scope.to_owned(), name.to_owned())),
        )
        .collect();
    let mut checked = 0;
    for entry in std::fs::read_dir(root().join("src/options")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let Some(start) = text.find("\nimpl Options {\n") else {
            continue;
        };
        let block = &text[start
            ..text[start..]
                .find("\n}\n")
                .map_or(text.len(), |e| start + e)];
        let mut doc: Vec<&str> = Vec::new();
        for line in block.lines().map(str::trim) {
            if let Some(comment) = line.strip_prefix("///") {
                doc.push(comment.trim());
                continue;
            }
            let setter = line.contains(") => rocksdb_");
            let method = line.starts_with("pub fn ") && line.contains("-> &mut Self");
            if setter || method {
                let item = line
                    .split('(')
                    .next()
                    .unwrap()
                    .trim_start_matches("pub fn ");
                let text = doc.join(" ");
                let scope = text
                    .split_once("Scope: ")
                    .unwrap_or_else(|| panic!("{}: {item} does not say its scope", path.display()))
                    .1;
                let mut names = 0;
                for part in scope.trim_end_matches('.').split(") and ") {
                    let (kind, list) = part.split_once(" (").unwrap();
                    let kind = match kind {
                        "database" => "db",
                        "column family" => "cf",
                        "column family's block-based table" => "block_based",
                        "column family's plain table" => "plain",
                        other => panic!("{item}: unknown scope {other:?}"),
                    };
                    for name in backticked(list) {
                        assert!(
                            known.contains(&(kind.to_owned(), name.clone())),
                            "{}: {item} says {kind} {name}, which the option table does not",
                            path.display()
                        );
                        names += 1;
                    }
                }
                assert!(names > 0, "{item}: a scope with no option named");
                checked += 1;
            }
            if !line.starts_with("#[") && !line.starts_with("setter!(") {
                doc.clear();
            }
        }
    }
    // Every typed setter of `Options` (update when adding one).
    assert_eq!(checked, 108);
}

/// The public types of `src/` (`pub struct`, `pub enum`) and the files (`db/database.rs`)
/// holding their inherent `impl` blocks.
fn inherent_impls() -> BTreeMap<String, BTreeSet<String>> {
    let files = source_files();
    let texts: Vec<(String, String)> = files
        .values()
        .map(|path| {
            let relative = path.strip_prefix(root().join("src")).unwrap();
            (
                relative.display().to_string(),
                std::fs::read_to_string(path).unwrap(),
            )
        })
        .collect();
    let mut public = BTreeSet::new();
    for (_, text) in &texts {
        for line in text.lines() {
            for prefix in ["pub struct ", "pub enum "] {
                if let Some(rest) = line.strip_prefix(prefix) {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    public.insert(name);
                }
            }
        }
    }
    let mut homes: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, text) in &texts {
        for line in text.lines() {
            let Some(rest) = line.strip_prefix("impl") else {
                continue;
            };
            if !line.ends_with('{') || line.contains(" for ") {
                continue;
            }
            // `impl<'a, S: ReadSource> Reader<'a, S> {`: skip the generics, take the name.
            let mut depth = 0;
            let mut after = rest;
            for (i, c) in rest.char_indices() {
                match c {
                    '<' => depth += 1,
                    '>' => depth -= 1,
                    ' ' if depth == 0 => {
                        after = &rest[i + 1..];
                        break;
                    }
                    _ => {}
                }
            }
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if public.contains(&name) {
                homes.entry(name).or_default().insert(file.clone());
            }
        }
    }
    homes
}

#[test]
fn each_type_s_methods_are_where_the_layout_says() {
    let layout = std::fs::read_to_string(root().join("docs/layout.md")).unwrap();
    let section = layout
        .split("## Where each type's methods are")
        .nth(1)
        .expect("docs/layout.md has a section \"Where each type's methods are\"");
    let section = section.split("\n## ").next().unwrap();
    let mut table: BTreeMap<String, (String, BTreeSet<String>)> = BTreeMap::new();
    for row in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let names = |cell: &str| -> Vec<String> { backticked(cell).into_iter().collect() };
        let ty = names(cells[1]).pop().unwrap();
        let home = names(cells[2]).pop().unwrap();
        let mut files: BTreeSet<String> = names(cells[3]).into_iter().collect();
        files.insert(home.clone());
        table.insert(ty, (home, files));
    }
    let impls = inherent_impls();
    assert!(
        impls.len() > 20,
        "found the methods of {} public types only",
        impls.len()
    );
    for (ty, files) in &impls {
        match table.get(ty) {
            Some((home, listed)) => {
                assert_eq!(
                    listed, files,
                    "docs/layout.md's row for {ty} and its impl blocks disagree"
                );
                let home_path = root().join("src").join(home);
                let text = std::fs::read_to_string(&home_path).unwrap();
                assert!(
                    text.contains(&format!("pub struct {ty}"))
                        || text.contains(&format!("pub enum {ty}")),
                    "{ty}'s home {home} does not declare it"
                );
            }
            None => assert_eq!(
                files.len(),
                1,
                "{ty}'s methods are in {files:?}: keep them in one file, or name its home and \
                 facets in docs/layout.md's table of where each type's methods are"
            ),
        }
    }
    for ty in table.keys() {
        assert!(
            impls.contains_key(ty),
            "docs/layout.md names {ty}, which has no methods"
        );
    }
}
