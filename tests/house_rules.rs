//! The rules of the house that a reader relies on, checked on the source itself: imports
//! between the modules of `src/` run one way (no circle), and every `unsafe` block or impl
//! says why it holds in a `// SAFETY:` comment right above it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each module of `src/` (by file name) and the modules it names through `crate::`.
fn module_imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph = BTreeMap::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let module = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut names = BTreeSet::new();
        for line in text.lines() {
            let code = line.split("//").next().unwrap();
            for (i, _) in code.match_indices("crate::") {
                let rest = &code[i + "crate::".len()..];
                let group: Vec<&str> = match rest.strip_prefix('{') {
                    // `crate::{a, b::C}`: each item's first segment.
                    Some(inner) => inner.split('}').next().unwrap().split(',').collect(),
                    None => vec![rest],
                };
                for item in group {
                    let name: String = item
                        .trim()
                        .chars()
                        .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                        .collect();
                    if !name.is_empty() && name != module {
                        names.insert(name);
                    }
                }
            }
        }
        graph.insert(module, names);
    }
    graph
}

#[test]
fn src_has_no_import_circle() {
    let graph = module_imports();
    assert!(graph.contains_key("handles") && graph.contains_key("db"));
    // Depth-first search; a module met again while still on the path closes a circle.
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
    // The owned handles are at the bottom: they import no API module.
    for api in [
        "db",
        "column_family",
        "read",
        "write",
        "batch",
        "options",
        "table",
    ] {
        assert!(
            !graph["handles"].contains(api),
            "handles imports {api}: {:?}",
            graph["handles"]
        );
    }
}

/// The layers of `src/`, bottom first, as the README's layout table lists them: each module
/// imports only modules before it.
const LAYERS: &[&str] = &[
    "ffi",
    "source",
    "codec",
    "error",
    "reentry",
    "pinned",
    "new_value",
    "merge",
    "compaction_filter",
    "comparator",
    "statistics",
    "handles",
    "cache",
    "compression",
    "compaction_style",
    "rate_limiter",
    "table_options",
    "snapshot",
    "options",
    "pinned_value",
    "iter",
    "column_family",
    "read",
    "batch",
    "write",
    "table",
    "db",
    "stored_options",
    "open",
    "transaction",
    "table_transaction",
    "indexed_batch",
    "table_batch",
    "live_options",
    "sst",
    "backup",
    "updates",
    "metadata",
];

#[test]
fn each_module_imports_only_the_layers_below_it() {
    let graph = module_imports();
    for module in graph.keys() {
        let known =
            LAYERS.contains(&module.as_str()) || ["lib", "layout_tests"].contains(&module.as_str());
        assert!(
            known,
            "src/{module}.rs is in no layer: add it to LAYERS and the README"
        );
    }
    for (i, module) in LAYERS.iter().enumerate() {
        for import in &graph[*module] {
            if let Some(j) = LAYERS.iter().position(|m| m == import) {
                assert!(j < i, "{module} imports {import}, a layer above it");
            }
        }
    }
}

#[test]
fn every_unsafe_block_and_impl_says_why() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut missing = Vec::new();
    let mut counted = 0;
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if name == "ffi.rs" || !name.ends_with(".rs") {
            continue; // generated bindings
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap();
            let is_unsafe_use = code.contains("unsafe {") || code.contains("unsafe impl");
            if !is_unsafe_use {
                continue;
            }
            counted += 1;
            // The comment stands above the statement: look back over the lines of the same
            // statement and the comment block right above it.
            let said = lines[..=i]
                .iter()
                .rev()
                .take(12)
                .any(|l| l.trim_start().starts_with("// SAFETY:"));
            if !said {
                missing.push(format!("{name}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        counted > 40,
        "only {counted} unsafe uses found: is the scan broken?"
    );
    assert!(
        missing.is_empty(),
        "unsafe without a SAFETY comment:\n{}",
        missing.join("\n")
    );
}
