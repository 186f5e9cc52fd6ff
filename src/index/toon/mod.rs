//! The TOON codec for the index file.
//!
//! kbidx writes one shape of TOON (v4): a root object with one tabular array,
//! `sections[N]{reference,title,hints}:` and one 2-space-indented row per
//! section, comma-delimited, cells quoted exactly when §7.2 of the spec
//! requires. [`encode`] writes it (with one final newline, see docs/knowledge.md);
//! [`decode`] reads it back strictly, with `line:column` errors, and accepts
//! any quoting a conforming encoder may produce.

mod decode;
mod encode;

pub use decode::{Table, decode, decode_rows, locate};
pub(crate) use encode::push_table;
pub use encode::{encode, needs_quotes, push_header, push_row, quote};

/// The key of the index's tabular array.
pub const KEY: &str = "sections";

/// The columns, in order (a fourth, `terms`, follows when terms are derived).
pub const FIELDS: [&str; 3] = ["reference", "title", "hints"];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::model::{Entry, Index};
    use std::path::Path;

    fn entry(reference: &str, title: &str, hints: &str) -> Entry {
        Entry {
            reference: reference.into(),
            title: title.into(),
            hints: hints.into(),
            terms: String::new(),
        }
    }

    #[test]
    fn round_trips_awkward_cells() {
        let awkward = [
            "",
            " lead",
            "trail ",
            "a,b",
            "a:b",
            "say \"hi\"",
            "back\\slash",
            "[x]",
            "{y}",
            "-dash",
            "#hash",
            "true",
            "false",
            "null",
            "42",
            "-3.14",
            "1e-6",
            "05",
            "+1",
            "tab\there",
            "new\nline",
            "cr\r",
            "\u{1}",
            "絵文字 🎉",
            "ＦＵＬＬ",
            "a|b",
            "normal words",
            "#",
            "-",
            "a#b",
            "x-y",
        ];
        let index = Index {
            entries: awkward
                .iter()
                .enumerate()
                .map(|(i, s)| entry(&format!("f.json#s{i}"), s, s))
                .collect(),
        };
        let text = encode(&index);
        assert!(
            !text.lines().any(|l| l.ends_with(' ')),
            "trailing space in\n{text}"
        );
        let back = decode(Path::new("i.toon"), &text).map_err(|e| e.to_string());
        assert_eq!(back, Ok(index));
    }

    #[test]
    fn encodes_the_documented_shape() {
        let index = Index {
            entries: vec![
                entry(
                    "features/dao.json#paging",
                    "ユニバーサルDAO",
                    "ページング per page",
                ),
                entry("a.json#x", "", "true"),
            ],
        };
        insta::assert_snapshot!(encode(&index), @r#"
        sections[2]{reference,title,hints}:
          features/dao.json#paging,ユニバーサルDAO,ページング per page
          a.json#x,"","true"
        "#);
    }

    #[test]
    fn empty_index() {
        let text = encode(&Index::default());
        assert_eq!(text, "sections[0]{reference,title,hints}:\n");
        assert_eq!(
            decode(Path::new("i.toon"), &text).map_err(|e| e.to_string()),
            Ok(Index::default())
        );
    }
}
