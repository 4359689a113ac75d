//! The server's modules form layers that point one way: the list in the
//! crate's documentation (`src/lib.rs`, "Layers", lowest first) is read here
//! and held against the `crate::` paths of every file under `src/`. A path
//! from a module to one of a higher layer fails, naming the file, the line
//! and both layers; so does a circle between modules of one layer, and a
//! module the list does not place. Test code (an item or module under
//! `#[cfg(test)]`) may reach anywhere and is not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crate root's own items (`crate::random_bytes`), named in the list as
/// this.
const ROOT: &str = "lib";

/// The layers, lowest first: the module names of each, read from the
/// numbered lines of the "Layers" section of `src/lib.rs`'s documentation
/// (`//! 3. \`a\`, \`b\`: what they are`).
fn layers(lib: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in lib.lines() {
        let Some(doc) = line.strip_prefix("//!") else { continue };
        let doc = doc.trim();
        if doc.starts_with('#') {
            inside = doc.trim_start_matches('#').trim() == "Layers";
            continue;
        }
        if !inside {
            continue;
        }
        let Some((n, rest)) = doc.split_once(". ") else { continue };
        if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        assert_eq!(n.parse::<usize>().ok(), Some(out.len() + 1), "src/lib.rs: the layers are numbered 1, 2, 3…: {doc}");
        let names = rest.split_once(": ").map_or(rest, |(names, _)| names);
        out.push(names.split(',').map(|n| n.trim().trim_matches('`').to_owned()).collect());
    }
    out
}

/// Every `.rs` file under `dir`, by path.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source directory") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file under `src/` belongs to (`src/a.rs` and
/// `src/a/…` are `a`; `src/lib.rs` is the root).
fn module_of(relative: &str) -> String {
    let first = relative.split('/').next().unwrap_or(relative);
    match first.strip_suffix(".rs") {
        Some("lib") => ROOT.to_owned(),
        Some(m) => m.to_owned(),
        None => first.to_owned(),
    }
}

/// A reference from a file to a top-level module: (line number, module).
type Uses = Vec<(usize, String)>;

/// The top-level modules `text` names through `crate::` (and `$crate::`)
/// paths, by line: in `use` lines (grouped ones too), inline paths and
/// attribute strings; not in comments, nor in code under `#[cfg(test)]`.
/// `modules` are the crate's top-level modules; any other name after
/// `crate::` is an item of the root.
fn uses(text: &str, modules: &BTreeSet<String>) -> (Uses, Vec<String>) {
    let mut out = Vec::new();
    let mut test_files = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    // A grouped `use crate::{…}` being read, across lines.
    let mut group = false;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(") && cfg_test(trimmed) {
            // Skip the item the attribute applies to (after any further
            // attributes): one line ending in `;`, or through the line that
            // closes it at the same indentation.
            let mut j = i + 1;
            while j < lines.len() && lines[j].trim_start().starts_with("#[") {
                j += 1;
            }
            let Some(item) = lines.get(j) else { break };
            let indent = &item[..item.len() - item.trim_start().len()];
            if item.trim_end().ends_with(';') {
                if let Some(name) = item.trim().strip_suffix(';').and_then(|s| s.rsplit(' ').next()) {
                    if item.contains("mod ") {
                        test_files.push(name.to_owned());
                    }
                }
                i = j + 1;
                continue;
            }
            let close = format!("{indent}}}");
            let mut k = j + 1;
            while k < lines.len() && !lines[k].starts_with(&close) {
                k += 1;
            }
            i = k + 1;
            continue;
        }
        let code = code_of(line);
        if group {
            for name in group_names(code) {
                out.push((i + 1, root_or(name, modules)));
            }
            group = !(code.trim_end().ends_with("};") || code.trim() == "}");
        }
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            if let Some(inner) = after.strip_prefix('{') {
                // `crate::{a, b::c, …}`: each first name.
                let end = inner.find('}');
                for name in group_names(&inner[..end.unwrap_or(inner.len())]) {
                    out.push((i + 1, root_or(name, modules)));
                }
                group = end.is_none();
            } else {
                let name: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if !name.is_empty() {
                    out.push((i + 1, root_or(&name, modules)));
                }
            }
            rest = after;
        }
        i += 1;
    }
    (out, test_files)
}

/// Whether a `#[cfg(…)]` attribute holds only under test.
fn cfg_test(attr: &str) -> bool {
    let inner = attr.trim_start_matches("#[cfg(").trim_end_matches(")]");
    inner == "test" || (inner.starts_with("all(") && inner.split(['(', ',', ')']).any(|w| w.trim() == "test"))
}

/// A line without its comment (a `//` outside a string).
fn code_of(line: &str) -> &str {
    let mut in_string = false;
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            // Not an escaped quote, nor the character '"'.
            b'"' if i == 0
                || (bytes[i - 1] != b'\\' && !(bytes[i - 1] == b'\'' && bytes.get(i + 1) == Some(&b'\''))) =>
            {
                in_string = !in_string
            }
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
    }
    line
}

/// The first names of the paths in a `use` group's text (`a, b::c, d::{e}`).
fn group_names(text: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut depth = 0;
    let mut start = true;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                start = true;
                continue;
            }
            _ => {}
        }
        if start && depth == 0 && !c.is_whitespace() {
            let name = text[i..].split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next().unwrap_or("");
            if !name.is_empty() {
                names.push(name);
            }
            start = false;
        }
    }
    names
}

fn root_or(name: &str, modules: &BTreeSet<String>) -> String {
    if modules.contains(name) {
        name.to_owned()
    } else {
        ROOT.to_owned()
    }
}

/// What is wrong with `files` (path under `src/`, text) against `layers`:
/// each path to a higher layer, each module the list does not place (or a
/// name it lists that is no module), and each circle.
fn problems(files: &[(String, String)], layers: &[Vec<String>]) -> Vec<String> {
    let mut problems = Vec::new();
    let modules: BTreeSet<String> =
        files.iter().map(|(p, _)| module_of(p)).filter(|m| m != ROOT && m != "main").collect();
    let mut layer_of = BTreeMap::new();
    for (i, names) in layers.iter().enumerate() {
        for n in names {
            if n != ROOT && !modules.contains(n) {
                problems.push(format!("layer {} lists `{n}`, which is no module under src/", i + 1));
            }
            layer_of.insert(n.clone(), i);
        }
    }
    for m in &modules {
        if !layer_of.contains_key(m) {
            problems.push(format!("src/{m}: the module `{m}` is in no layer of src/lib.rs's list"));
        }
    }
    let describe = |i: usize| format!("layer {} ({})", i + 1, layers[i].join(", "));
    // The files that exist only under test (`#[cfg(test)] mod x;`).
    let mut test_only = BTreeSet::new();
    let mut read = Vec::new();
    for (path, text) in files {
        let (u, tests) = uses(text, &modules);
        // Where the files of the modules this one declares are.
        let dir = match path.as_str() {
            "lib.rs" => "",
            p => p.strip_suffix("mod.rs").unwrap_or_else(|| p.strip_suffix(".rs").unwrap_or(p)),
        };
        let dir = if dir.is_empty() || dir.ends_with('/') { dir.to_owned() } else { format!("{dir}/") };
        for t in tests {
            test_only.insert(format!("{dir}{t}.rs"));
            test_only.insert(format!("{dir}{t}/mod.rs"));
        }
        read.push((path, u));
    }
    let mut edges: BTreeMap<String, BTreeMap<String, (String, usize)>> = BTreeMap::new();
    for (path, u) in read {
        if test_only.contains(path.as_str()) || path == "main.rs" {
            continue;
        }
        let from = module_of(path);
        for (line, to) in u {
            if to == from {
                continue;
            }
            let (Some(&a), Some(&b)) = (layer_of.get(&from), layer_of.get(&to)) else { continue };
            if b > a {
                problems.push(format!(
                    "src/{path}:{line}: `{from}` ({}) uses `{to}` ({}), a higher layer",
                    describe(a),
                    describe(b)
                ));
            }
            edges.entry(from.clone()).or_default().entry(to).or_insert((path.clone(), line));
        }
    }
    if let Some(circle) = circle(&edges) {
        let steps: Vec<String> = circle
            .windows(2)
            .map(|w| {
                let (path, line) = &edges[&w[0]][&w[1]];
                format!("`{}` uses `{}` (src/{path}:{line})", w[0], w[1])
            })
            .collect();
        problems.push(format!("the modules use each other in a circle: {}", steps.join(", ")));
    }
    problems
}

/// A circle in the graph, as its modules with the first repeated at the end.
fn circle(edges: &BTreeMap<String, BTreeMap<String, (String, usize)>>) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        edges: &BTreeMap<String, BTreeMap<String, (String, usize)>>,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut c = path[at..].to_vec();
            c.push(m.to_owned());
            return Some(c);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_owned());
        for next in edges.get(m).into_iter().flat_map(|e| e.keys()) {
            if let Some(c) = visit(next, edges, done, path) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    for m in edges.keys() {
        if let Some(c) = visit(m, edges, &mut done, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

/// The files under `src/`, as (path under `src/`, text).
fn crate_files() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    sources(&src, &mut paths);
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&src).expect("under src").to_string_lossy().replace('\\', "/");
            (rel, std::fs::read_to_string(&p).expect("a source file"))
        })
        .collect()
}

fn crate_layers() -> Vec<Vec<String>> {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).expect("src/lib.rs");
    let layers = layers(&lib);
    assert!(layers.len() >= 3, "src/lib.rs lists {} layers under \"# Layers\"", layers.len());
    layers
}

#[test]
fn no_module_uses_a_higher_layer_and_none_use_each_other_round_about() {
    let problems = problems(&crate_files(), &crate_layers());
    assert!(problems.is_empty(), "the layers of src/lib.rs do not hold:\n{}", problems.join("\n"));
}

/// The check itself: the crate's files with one bad line added are refused,
/// by file, line and layers; a circle is named.
#[test]
fn an_import_of_a_higher_layer_or_a_circle_is_refused() {
    let layers = crate_layers();
    let mut files = crate_files();
    let (lowest, highest) =
        (layers[0].iter().find(|m| *m != ROOT).expect("a module").clone(), layers.last().expect("a layer")[0].clone());
    let file = files.iter_mut().find(|(p, _)| module_of(p) == lowest).expect("a file of the lowest layer");
    let path = file.0.clone();
    let line = file.1.lines().count() + 3;
    file.1.push_str(&format!("\nfn up() {{\n    crate::{highest}::nothing();\n}}\n"));
    let found = problems(&files, &layers);
    let expected = format!("src/{path}:{}: `{lowest}` (layer 1", line);
    assert!(
        found
            .iter()
            .any(|p| p.starts_with(&expected) && p.contains(&format!("uses `{highest}` (layer {}", layers.len()))),
        "not refused: {found:?}"
    );
    assert!(found.iter().any(|p| p.starts_with("the modules use each other in a circle")), "{found:?}");

    // A grouped import across lines, in a file of its own.
    let files = vec![
        ("a.rs".to_owned(), "use crate::{\n    b::X,\n    c,\n};\n".to_owned()),
        ("b.rs".to_owned(), "#[cfg(test)]\nmod tests {\n    use crate::a;\n}\n// crate::a in a comment\n".to_owned()),
        ("c.rs".to_owned(), String::new()),
    ];
    let small = vec![vec!["a".to_owned()], vec!["b".to_owned(), "c".to_owned()]];
    let found = problems(&files, &small);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("src/a.rs:2: `a` (layer 1 (a)) uses `b` (layer 2 (b, c))"), "{found:?}");
    assert!(found[1].starts_with("src/a.rs:3: `a`"), "{found:?}");

    // Two modules of one layer that use each other.
    let files = vec![
        ("a.rs".to_owned(), "use crate::b::X;\n".to_owned()),
        ("b/mod.rs".to_owned(), "fn f() { crate::a::g() }\n".to_owned()),
    ];
    let found = problems(&files, &[vec!["a".to_owned(), "b".to_owned()]]);
    assert_eq!(
        found,
        vec!["the modules use each other in a circle: `a` uses `b` (src/a.rs:1), `b` uses `a` (src/b/mod.rs:1)"]
    );
}
