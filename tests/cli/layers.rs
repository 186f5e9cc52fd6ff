//! The module layering the source must keep: no import loop between the
//! search stage and the PostgreSQL backend (both build on `query`, `rank`,
//! `text` and `parallel`), and the MCP adapter does not reach into the
//! command line module. Read from the source files, as a reviewer would grep.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, in name order.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// The code lines of the module at `module` (a directory or a `.rs` file
/// under `src/`) that name `forbidden` (`crate::pg`, ...), as `file:line: text`.
fn naming(module: &str, forbidden: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let dir = root.join(module);
    let files = match dir.is_dir() {
        true => sources(&dir),
        false => vec![root.join(format!("{module}.rs"))],
    };
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (i, line) in text.lines().enumerate() {
            // Comments may point at the other module; code may not.
            if line.contains(forbidden) && !line.trim_start().starts_with("//") {
                let name = file.strip_prefix(&root).unwrap().display();
                out.push(format!("{name}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    out
}

#[test]
fn no_import_loops() {
    for (module, forbidden) in [
        ("search", "crate::pg"),
        ("pg", "crate::search"),
        ("mcp", "crate::cli"),
        // The hand-over (answer) shapes content for the renderer (output),
        // which prints what it is given.
        ("output", "crate::answer"),
        ("search", "crate::answer"),
        // What both build on names neither.
        ("query", "crate::search"),
        ("query", "crate::pg"),
        ("rank", "crate::search"),
        ("rank", "crate::pg"),
        ("parallel", "crate::"),
    ] {
        assert_eq!(
            naming(module, forbidden),
            Vec::<String>::new(),
            "src/{module} names {forbidden}"
        );
    }
}
