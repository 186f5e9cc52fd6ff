//! The hint rules: sections without hints, hints that discriminate nothing,
//! and hints copied across unrelated files.
//!
//! A hint "matches" a row the way a search keyword would, without the
//! derived terms (which lint does not compute): its normalised form (NFKC,
//! case-folded) occurs in the row's path, title or hints, and a hint that
//! starts or ends with a Latin letter or digit only matches at a word
//! boundary there (`dao` does not match `daos`). One Aho-Corasick automaton
//! holds every distinct hint, so the check is one pass over the rows.

use std::collections::{BTreeSet, HashMap};

use aho_corasick::{AhoCorasick, MatchKind};

use super::{Finding, Row, Rule, Thresholds};
use crate::text::normalize::normalize;

/// The findings of the three hint rules that `on` selects.
pub(crate) fn check(
    rows: &[Row],
    thresholds: Thresholds,
    on: &dyn Fn(Rule) -> bool,
) -> Vec<Finding> {
    let mut out = Vec::new();
    // Rules about hints only make sense where the maintainers write hints.
    if rows.iter().all(|r| r.hints.is_empty()) {
        return out;
    }
    let finding = |rule: Rule, row: &Row, evidence: String| Finding {
        rule: rule.id(),
        file: row.file.clone(),
        section: Some(row.section.clone()),
        evidence,
        ordinal: row.ordinal,
    };
    if on(Rule::NoHints) {
        for row in rows
            .iter()
            .filter(|r| r.hints.iter().all(|h| h.trim().is_empty()))
        {
            out.push(finding(
                Rule::NoHints,
                row,
                format!("no hints (title: {:?})", row.title),
            ));
        }
    }
    // Distinct hints (normalised), each with its first spelling, the rows
    // that carry it and the files they are in.
    let mut hints: Vec<(String, &str)> = Vec::new();
    let mut position: HashMap<String, usize> = HashMap::new();
    let mut carriers: Vec<Vec<usize>> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        for hint in &row.hints {
            let key = normalize(hint.trim());
            if key.is_empty() {
                continue;
            }
            let at = *position.entry(key.clone()).or_insert_with(|| {
                hints.push((key, hint.trim()));
                carriers.push(Vec::new());
                hints.len() - 1
            });
            if carriers[at].last() != Some(&i) {
                carriers[at].push(i);
            }
        }
    }
    if on(Rule::NonDiscriminativeHint) {
        let matches = matching_rows(rows, &hints, &carriers);
        let limit = thresholds.hint_share * rows.len() as f64;
        for (h, (_, spelling)) in hints.iter().enumerate() {
            let (n, elsewhere) = matches[h];
            if n as f64 > limit && elsewhere >= thresholds.hint_min_rows {
                let row = &rows[carriers[h][0]];
                out.push(finding(
                    Rule::NonDiscriminativeHint,
                    row,
                    format!(
                        "hint {spelling:?} matches {n} of {} sections ({:.1}%, limit {}%), {elsewhere} of them in files that do not carry it",
                        rows.len(),
                        100.0 * n as f64 / rows.len() as f64,
                        thresholds.hint_share * 100.0,
                    ),
                ));
            }
        }
    }
    if on(Rule::RepeatedHint) {
        for (h, (_, spelling)) in hints.iter().enumerate() {
            let files: BTreeSet<&str> =
                carriers[h].iter().map(|&i| rows[i].file.as_str()).collect();
            if files.len() < thresholds.repeated_hint_files {
                continue;
            }
            let dirs: BTreeSet<&str> = files
                .iter()
                .map(|f| f.rsplit_once('/').map_or("", |(dir, _)| dir))
                .collect();
            if dirs.len() < thresholds.repeated_hint_dirs {
                continue;
            }
            let row = &rows[carriers[h][0]];
            out.push(finding(
                Rule::RepeatedHint,
                row,
                format!(
                    "hint {spelling:?} is carried by {} files in {} directories: {}",
                    files.len(),
                    dirs.len(),
                    super::rules::preview(files.iter().copied())
                ),
            ));
        }
    }
    out
}

/// For each hint (normalised, in `hints` order), how many rows it matches,
/// and how many of those are in files that none of its `carriers` (rows
/// that carry it) is in: matches in its own files are what a hint is for.
fn matching_rows(
    rows: &[Row],
    hints: &[(String, &str)],
    carriers: &[Vec<usize>],
) -> Vec<(usize, usize)> {
    let mut counts = vec![(0, 0); hints.len()];
    let Ok(automaton) = AhoCorasick::builder()
        .match_kind(MatchKind::Standard)
        .build(hints.iter().map(|(key, _)| key.as_str()))
    else {
        return counts;
    };
    let mut seen = vec![usize::MAX; hints.len()];
    for (i, row) in rows.iter().enumerate() {
        // The path without its `.json`: every row has that, and a hint
        // `JSON` would otherwise match them all.
        let path = row.file.strip_suffix(".json").unwrap_or(&row.file);
        let haystack = normalize(&format!("{path} {} {}", row.title, row.hints.join(" ")));
        let bytes = haystack.as_bytes();
        for m in automaton.find_overlapping_iter(&haystack) {
            let h = m.pattern().as_usize();
            if seen[h] == i {
                continue;
            }
            let key = hints[h].0.as_bytes();
            let word = |b: Option<&u8>| b.is_some_and(u8::is_ascii_alphanumeric);
            let open_start =
                word(key.first()) && word(m.start().checked_sub(1).and_then(|j| bytes.get(j)));
            let open_end = word(key.last()) && word(bytes.get(m.end()));
            if !open_start && !open_end {
                seen[h] = i;
                counts[h].0 += 1;
                if !carriers[h].iter().any(|&c| rows[c].file == row.file) {
                    counts[h].1 += 1;
                }
            }
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(file: &str, section: &str, hints: &[&str]) -> Row {
        Row {
            file: file.into(),
            section: section.into(),
            ordinal: 1,
            title: format!("{section} title"),
            hints: hints.iter().map(|h| (*h).to_owned()).collect(),
        }
    }

    #[test]
    fn hint_rules() {
        let mut rows = vec![
            row("a/x.json", "s1", &["DAO", "ページング"]),
            row("a/y.json", "s1", &["dao"]),
            row("b/z.json", "s1", &[]),
            row("e/dao unique.json", "s1", &["other"]),
            row("c/w.json", "s1", &["daos only", "ＤＡＯ"]),
        ];
        for i in 0..16 {
            rows.push(row(&format!("d{i}/f.json"), "s", &["unique"]));
        }
        let thresholds = Thresholds {
            hint_share: 0.1,
            hint_min_rows: 1,
            repeated_hint_files: 3,
            repeated_hint_dirs: 2,
            ..Thresholds::default()
        };
        let got: Vec<(&str, String, String)> = check(&rows, thresholds, &|_| true)
            .into_iter()
            .map(|f| {
                (
                    f.rule,
                    format!("{}#{}", f.file, f.section.unwrap_or_default()),
                    f.evidence,
                )
            })
            .collect();
        let want = [
            ("no-hints", "b/z.json#s1", "no hints (title: \"s1 title\")"),
            (
                "non-discriminative-hint",
                "a/x.json#s1",
                "hint \"DAO\" matches 4 of 21 sections (19.0%, limit 10%), 1 of them in files that do not carry it",
            ),
            (
                "non-discriminative-hint",
                "d0/f.json#s",
                "hint \"unique\" matches 17 of 21 sections (81.0%, limit 10%), 1 of them in files that do not carry it",
            ),
            (
                "repeated-hint",
                "a/x.json#s1",
                "hint \"DAO\" is carried by 3 files in 2 directories: a/x.json, a/y.json, c/w.json",
            ),
            (
                "repeated-hint",
                "d0/f.json#s",
                "hint \"unique\" is carried by 16 files in 16 directories: d0/f.json, d1/f.json, d10/f.json, d11/f.json, d12/f.json, … 11 more",
            ),
        ];
        let want: Vec<(&str, String, String)> = want
            .iter()
            .map(|(r, p, e)| (*r, (*p).to_owned(), (*e).to_owned()))
            .collect();
        assert_eq!(got, want);
        let none = [row("a.json", "s1", &[]), row("b.json", "s1", &[])];
        assert!(check(&none, thresholds, &|_| true).is_empty());
    }
}
