//! Running the extraction jq program over knowledge files, in-process.
//!
//! [`Extractor::new`] parses and compiles a jq program once with jaq-core
//! (plus jaq-std and jaq-json definitions), with `$path` as a global
//! variable; [`Extractor::run`] applies it to one parsed knowledge file and
//! turns each output into a [`Record`]: a section [`Entry`] or a warning.
//! The built-in program is [`DEFAULT_PROGRAM`] (`src/extract.jq`).

use std::path::{Path, PathBuf};

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data};
use jaq_json::Val;

use crate::error::{Error, Result};
use crate::index::model::Entry;

/// The default extraction program, `src/extract.jq`.
pub const DEFAULT_PROGRAM: &str = include_str!("../extract.jq");

/// The name the default program is reported under in error messages.
pub const DEFAULT_PROGRAM_PATH: &str = "src/extract.jq";

type Data = data::JustLut<Val>;

/// A compiled extraction program.
pub struct Extractor {
    filter: jaq_core::Filter<Data>,
    program: PathBuf,
}

/// One output of the program for one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// A section row.
    Entry(Entry),
    /// A `{warning: "..."}` object: reported, or an error with `--strict`.
    Warning(String),
}

impl Extractor {
    /// Compiles the built-in program.
    pub fn builtin() -> Result<Self> {
        Self::new(DEFAULT_PROGRAM, Path::new(DEFAULT_PROGRAM_PATH))
    }

    /// Compiles `code`, read from `program` (used in error messages).
    pub fn new(code: &str, program: &Path) -> Result<Self> {
        let defs = jaq_core::defs()
            .chain(jaq_std::defs())
            .chain(jaq_json::defs());
        let funs = jaq_core::funs()
            .chain(jaq_std::funs())
            .chain(jaq_json::funs());
        let arena = Arena::default();
        let loader = Loader::new(defs);
        let modules = loader
            .load(&arena, File { code, path: () })
            .map_err(|errs| {
                let (offset, message) = load_error(code, errs);
                Error::syntax_at(program, code, offset, message)
            })?;
        let filter = Compiler::default()
            .with_funs(funs)
            .with_global_vars(["$path"])
            .compile(modules)
            .map_err(|errs| {
                let (offset, message) = errs
                    .into_iter()
                    .flat_map(|(_, errs)| errs)
                    .next()
                    .map(|(name, undefined)| {
                        (
                            jaq_core::load::span(code, name).start,
                            format!("undefined {} `{name}`", undefined.as_str()),
                        )
                    })
                    .unwrap_or((0, "cannot compile program".to_owned()));
                Error::syntax_at(program, code, offset, message)
            })?;
        Ok(Self {
            filter,
            program: program.to_path_buf(),
        })
    }

    /// The path the program was read from.
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// Runs the program over `doc`, the contents of the knowledge file
    /// `relative` (found on disk at `path`, named in errors).
    pub fn run(&self, relative: &str, path: &Path, doc: Val) -> Result<Vec<Record>> {
        self.run_with(relative, path, doc, |_| ())
            .map(|records| records.into_iter().map(|(record, ())| record).collect())
    }

    /// [`Extractor::run`], with each entry's hints item by item as the
    /// program gave them (before they are joined with spaces, which loses
    /// where a hint of several words ends): what `kbidx lint` judges.
    pub(crate) fn run_with_hints(
        &self,
        relative: &str,
        path: &Path,
        doc: Val,
    ) -> Result<Vec<(Record, Vec<String>)>> {
        self.run_with(relative, path, doc, hint_items)
    }

    /// [`Extractor::run`], with the `links` each entry output names, when it
    /// names any: an array of link targets as they would be written in
    /// Markdown (`../x.json#anchor`), which replace the links kbidx finds in
    /// the section's text (a schema that keeps its links in a field of its
    /// own is thus still understood).
    pub(crate) fn run_with_links(
        &self,
        relative: &str,
        path: &Path,
        doc: Val,
    ) -> Result<Vec<(Record, Option<Vec<String>>)>> {
        self.run_with(relative, path, doc, |value| {
            field(value, b"links").and_then(|links| match links {
                Val::Arr(items) => Some(
                    items
                        .iter()
                        .filter_map(|item| match item {
                            Val::TStr(s) => Some(text(s)),
                            _ => None,
                        })
                        .collect(),
                ),
                _ => None,
            })
        })
    }

    /// Runs the program, turning each output into a record and `extra(output)`.
    fn run_with<T>(
        &self,
        relative: &str,
        path: &Path,
        doc: Val,
        extra: impl Fn(&Val) -> T,
    ) -> Result<Vec<(Record, T)>> {
        let vars = Vars::new([Val::from(relative.to_owned())]);
        let ctx = Ctx::<Data>::new(&self.filter.lut, vars);
        let mut records = Vec::new();
        for (i, out) in self
            .filter
            .id
            .run((ctx, doc))
            .map(jaq_core::unwrap_valr)
            .enumerate()
        {
            let value = out.map_err(|e| {
                let message = match e.into_val() {
                    Val::TStr(s) => String::from_utf8_lossy(&s).into_owned(),
                    other => other.to_string(),
                };
                // jq errors can embed the whole offending value (a 1 MB document…).
                let message = shorten(&message, 300);
                Error::data(
                    path,
                    format!(
                        "jq error in {}: {message}",
                        crate::error::display(&self.program)
                    ),
                )
            })?;
            let more = extra(&value);
            records.push((
                record(value).map_err(|message| {
                    Error::data(
                        path,
                        format!(
                            "output {} of {}: {message}",
                            i + 1,
                            crate::error::display(&self.program)
                        ),
                    )
                })?,
                more,
            ));
        }
        Ok(records)
    }
}

/// The field `name` of a program output, when it is an object that has it.
fn field<'a>(value: &'a Val, name: &[u8]) -> Option<&'a Val> {
    let Val::Obj(map) = value else {
        return None;
    };
    map.iter().find_map(|(key, value)| match key {
        Val::TStr(key) | Val::BStr(key) if &key[..] == name => Some(value),
        _ => None,
    })
}

/// The `hints` of a program output, item by item (a single string is one item).
fn hint_items(value: &Val) -> Vec<String> {
    match field(value, b"hints") {
        Some(Val::TStr(s)) if !s.is_empty() => vec![text(s)],
        Some(Val::Arr(items)) => items
            .iter()
            .filter_map(|item| match item {
                Val::TStr(s) => Some(text(s)),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// `s` cut to at most `max` characters, with an ellipsis when cut.
fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}… ({} characters in all)", &s[..i], s.chars().count()),
        None => s.to_owned(),
    }
}

/// A jq string as a Rust string (invalid UTF-8, which only a program's own
/// byte strings can produce, replaced by U+FFFD).
fn text(s: &[u8]) -> String {
    match simdutf8::basic::from_utf8(s) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(s).into_owned(),
    }
}

/// Turns one program output into a record, checking its shape.
fn record(value: Val) -> std::result::Result<Record, String> {
    let Val::Obj(map) = &value else {
        return Err(format!(
            "expected an object with `reference` and `hints`, found {value}"
        ));
    };
    // One pass over the object instead of a hashed look-up per field (each
    // needing its key as a `Val`): what `map.get` would find, as a string key
    // equals a text or byte string with the same bytes.
    let (mut warning, mut reference, mut title, mut hints) = (None, None, None, None);
    for (key, value) in map.iter() {
        let (Val::TStr(key) | Val::BStr(key)) = key else {
            continue;
        };
        match &key[..] {
            b"warning" => warning = Some(value),
            b"reference" => reference = Some(value),
            b"title" => title = Some(value),
            b"hints" => hints = Some(value),
            _ => {}
        }
    }
    let field = |name: &str, value: Option<&Val>| -> std::result::Result<Option<String>, String> {
        match value {
            None | Some(Val::Null) => Ok(None),
            Some(Val::TStr(s)) => Ok(Some(text(s))),
            Some(other) => Err(format!("`{name}` must be a string, found {other}")),
        }
    };
    if let Some(warning) = field("warning", warning)? {
        return Ok(Record::Warning(warning));
    }
    let reference = field("reference", reference)?.ok_or("missing `reference`")?;
    if !reference.contains('#') {
        return Err(format!(
            "`reference` must be <path>#<section id>, found {reference:?}"
        ));
    }
    let hints = match hints {
        None => return Err("missing `hints`".into()),
        Some(Val::Null) => String::new(),
        Some(Val::TStr(s)) => text(s),
        // An array of strings is joined with single spaces here: much faster
        // than jq's `join` in jaq, and the check names the offending hint.
        // The bytes are checked as UTF-8 once, joined: the space between two
        // hints ends any invalid sequence, so the result is the same as
        // replacing invalid UTF-8 hint by hint.
        Some(Val::Arr(items)) => {
            let mut joined = Vec::new();
            for (i, item) in items.iter().enumerate() {
                let Val::TStr(s) = item else {
                    return Err(format!(
                        "{reference}: hints[{i}] must be a string, found {item}"
                    ));
                };
                if i > 0 {
                    joined.push(b' ');
                }
                joined.extend_from_slice(s);
            }
            match String::from_utf8(joined) {
                Ok(joined) => joined,
                Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
            }
        }
        Some(other) => {
            return Err(format!(
                "{reference}: `hints` must be a string or an array of strings, found {other}"
            ));
        }
    };
    let title = field("title", title)?.unwrap_or_default();
    Ok(Record::Entry(Entry {
        reference,
        title,
        hints,
        terms: String::new(),
    }))
}

/// The byte offset and message of the first loader (lex or parse) error.
fn load_error<P>(code: &str, errs: jaq_core::load::Errors<&str, P>) -> (usize, String) {
    use jaq_core::load::Error as E;
    for (_, err) in errs {
        match err {
            E::Lex(errs) => {
                if let Some((expect, at)) = errs.into_iter().next() {
                    return (
                        jaq_core::load::span(code, at).start,
                        format!("expected {}", expect.as_str()),
                    );
                }
            }
            E::Parse(errs) => {
                if let Some((expect, at)) = errs.into_iter().next() {
                    let found = if at.is_empty() {
                        "end of program".to_owned()
                    } else {
                        format!("`{at}`")
                    };
                    return (
                        jaq_core::load::span(code, at).start,
                        format!("expected {}, found {found}", expect.as_str()),
                    );
                }
            }
            E::Io(errs) => {
                if let Some((name, message)) = errs.into_iter().next() {
                    return (
                        jaq_core::load::span(code, name).start,
                        format!("cannot load module {name}: {message}"),
                    );
                }
            }
        }
    }
    (0, "cannot parse program".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(program: &str, doc: &str) -> std::result::Result<Vec<Record>, String> {
        let ex = Extractor::new(program, Path::new("p.jq")).map_err(|e| e.to_string())?;
        let doc = crate::knowledge::parse(Path::new("k/a.json"), doc.as_bytes())
            .map_err(|e| e.to_string())?;
        ex.run("a.json", Path::new("k/a.json"), doc.to_jaq())
            .map_err(|e| e.to_string())
    }

    fn entry(reference: &str, title: &str, hints: &str) -> Record {
        Record::Entry(Entry {
            reference: reference.into(),
            title: title.into(),
            hints: hints.into(),
            terms: String::new(),
        })
    }

    #[test]
    fn default_program_small_schema() {
        let doc = r#"{"id":"x","title":"T","index":[{"id":"a","hints":["h1","h 2"]},{"id":"b","hints":[]}],
                     "sections":{"a":{},"b":"text","c":"orphan"}}"#;
        assert_eq!(
            run(DEFAULT_PROGRAM, doc),
            Ok(vec![
                entry("a.json#a", "T", "h1 h 2"),
                entry("a.json#b", "T", ""),
                entry("a.json#c", "T", ""),
                Record::Warning("section \"c\" has no index entry".into()),
            ])
        );
    }

    #[test]
    fn page_text_comes_first_as_its_own_row() {
        // nabledge-6-fulltext: a page introduction in `content`, or only that.
        let doc = r#"{"id":"p","title":"Page","content":"intro","no_knowledge_content":false,
                     "sections":[{"id":"s1","title":"One","content":"..."}]}"#;
        assert_eq!(
            run(DEFAULT_PROGRAM, doc),
            Ok(vec![
                entry("a.json#_page", "Page", ""),
                entry("a.json#s1", "Page / One", ""),
            ])
        );
        let only = r#"{"title":"Page","content":"intro","sections":[]}"#;
        assert_eq!(
            run(DEFAULT_PROGRAM, only),
            Ok(vec![entry("a.json#_page", "Page", "")])
        );
        // An empty `content` and metadata make no row; a section of the
        // file's own named `_page` keeps its place.
        for doc in [
            r#"{"title":"Page","content":"","official_doc_urls":["u"],"version":"6","sections":[]}"#,
            r#"{"title":"Page","content":"x","sections":[{"id":"_page","content":"own"}]}"#,
        ] {
            let records = run(DEFAULT_PROGRAM, doc).unwrap_or_default();
            assert!(records.len() <= 1, "{doc}: {records:?}");
        }
        // Other top-level fields are not page text: no row.
        let other =
            r#"{"title":"Page","sheet_type":"P2","p2_raw_lines":[[[1,"x"]]],"sections":[]}"#;
        assert_eq!(run(DEFAULT_PROGRAM, other), Ok(vec![]));
    }

    #[test]
    fn default_program_fulltext_schema() {
        let doc = r#"{"title":"File","sections":[{"id":"s1","title":"One","content":"..."}]}"#;
        assert_eq!(
            run(DEFAULT_PROGRAM, doc),
            Ok(vec![entry("a.json#s1", "File / One", "")])
        );
    }

    #[test]
    fn default_program_rejects_wrong_types() {
        let hints = r#"{"index":[{"id":"a","hints":"x"}],"sections":{"a":""}}"#;
        assert_eq!(
            run(DEFAULT_PROGRAM, hints),
            Err("k/a.json: jq error in p.jq: index[0].hints must be an array of strings, found a string".into())
        );
        let id = r#"{"index":[{"id":3,"hints":[]}],"sections":{}}"#;
        assert_eq!(
            run(DEFAULT_PROGRAM, id),
            Err("k/a.json: jq error in p.jq: index[0].id must be a string, found a number".into())
        );
    }

    /// Files that fail the default program's all-at-once check take the
    /// per-entry path: the error names the first bad entry, whatever comes
    /// after it (messages as before the check was added).
    #[test]
    fn default_program_names_the_first_bad_entry() {
        let cases = [
            (
                r#"{"index":["str",{"id":"a","title":1}]}"#,
                r#"cannot index "str" with "id""#,
            ),
            (
                r#"{"index":[{"id":"a","title":1},"str"]}"#,
                "index[0].title must be a string, found a number",
            ),
            (
                r#"{"index":[{"id":"a"},{"id":"b","hints":false}]}"#,
                "index[1].hints must be an array of strings, found a boolean",
            ),
            (
                r#"{"index":[null]}"#,
                "index[0].id must be a string, found null",
            ),
            (
                r#"{"sections":[{"id":"s"},{"id":"t","title":[1]}]}"#,
                "sections[1].title must be a string, found an array",
            ),
            (
                r#"{"sections":[{"id":"s"},"x"]}"#,
                r#"cannot index "x" with "id""#,
            ),
        ];
        for (doc, message) in cases {
            assert_eq!(
                run(DEFAULT_PROGRAM, doc),
                Err(format!("k/a.json: jq error in p.jq: {message}")),
                "{doc}"
            );
        }
    }

    #[test]
    fn default_program_titles_and_null_fields() {
        let doc = r#"{"title":"F","index":[{"id":"a","title":false,"hints":null},
                     {"id":"b","title":"F"},{"id":"c","title":"x"}],"sections":{"a":1,"b":2,"c":3}}"#;
        assert_eq!(
            run(DEFAULT_PROGRAM, doc),
            Ok(vec![
                entry("a.json#a", "F", ""),
                entry("a.json#b", "F", ""),
                entry("a.json#c", "F / x", ""),
            ])
        );
    }

    #[test]
    fn hint_arrays_are_joined_and_checked() {
        let doc = r#"{"index":[{"id":"a","hints":["x", "y z"]}],"sections":{"a":""}}"#;
        assert_eq!(
            run(DEFAULT_PROGRAM, doc),
            Ok(vec![entry("a.json#a", "", "x y z")])
        );
        let doc = r#"{"index":[{"id":"a","hints":["x", 42]}],"sections":{"a":""}}"#;
        assert_eq!(
            run(DEFAULT_PROGRAM, doc),
            Err("k/a.json: output 1 of p.jq: a.json#a: hints[1] must be a string, found 42".into())
        );
    }

    /// Invalid UTF-8 in hints (only a program's byte strings can have it) is
    /// replaced as if each hint were converted on its own, then joined.
    #[test]
    fn invalid_utf8_hints_are_replaced_hint_by_hint() {
        let pieces: [&[u8]; 4] = [b"ok", b"a\xE3\x81", b"\x82b", b"\xE3\x83\x9A\xff"];
        let hints = Val::from_iter(pieces.iter().map(|p| Val::utf8_str(p.to_vec())));
        let object = [
            (
                Val::from("reference".to_owned()),
                Val::from("a.json#x".to_owned()),
            ),
            (Val::from("hints".to_owned()), hints),
        ];
        let value = Val::obj(object.into_iter().collect());
        let want: Vec<String> = pieces
            .iter()
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect();
        assert_eq!(record(value), Ok(entry("a.json#x", "", &want.join(" "))));
    }

    #[test]
    fn program_errors_point_into_the_program() {
        assert_eq!(
            run(".index[] | {", "{}"),
            Err("p.jq:1:13: expected closing brace".into())
        );
        assert_eq!(
            run("\n  foo(1)", "{}"),
            Err("p.jq:2:3: undefined filter `foo`".into())
        );
        assert_eq!(
            run("{reference: \"a\"}", "{}"),
            Err(
                "k/a.json: output 1 of p.jq: `reference` must be <path>#<section id>, found \"a\""
                    .into()
            )
        );
    }
}
