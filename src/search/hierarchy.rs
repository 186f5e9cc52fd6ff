//! Two-pass file → section search on top of the one-pass scan.
//!
//! Pass 1 scores *files*: a file's text is its file title, path and the union
//! of its sections' fields, scored like a row but with idf over files. Pass 2
//! blends each section of the best files with its file:
//! `final = α · section/ideal + (1 − α) · file/file ideal` (a section has one
//! file, so this is its best file score, never a sum). Sections of the other
//! files keep `α · section/ideal`. When no file is confident, or the best files
//! cannot be told apart, the flat ranking stands; [`SearchMode`] says which
//! mode ran and why. Both passes reuse the scan's (pattern, field) masks, so
//! the two-pass search costs no second scan.

use super::fields::RowMasks;
use super::score::{Plan, Scorer, SearchMode};

/// Two-pass search settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hierarchy {
    /// Weight of the section score in the blend (the file gets `1 − alpha`).
    pub alpha: f64,
    /// How many of the best files pass 2 ranks first.
    pub files: usize,
}

impl Default for Hierarchy {
    fn default() -> Self {
        Self {
            alpha: DEFAULT_ALPHA,
            files: DEFAULT_FILES,
        }
    }
}

/// Default weight of the section score.
pub const DEFAULT_ALPHA: f64 = 0.7;
/// Default number of files ranked first.
pub const DEFAULT_FILES: usize = 10;
/// A file is confident when it scores at least this share of the file ideal.
const CONFIDENT: f64 = 0.3;
/// The best files are indistinguishable when the first file past the cut
/// scores at least this share of the best file's score.
const DISTINCT: f64 = 0.95;

/// Which file each row belongs to (rows of one file are contiguous).
#[derive(Debug, Clone, Default)]
pub(super) struct Files {
    /// File number of each row.
    pub(super) row_file: Vec<u32>,
    /// Number of files.
    pub(super) count: usize,
}

impl Files {
    /// Numbers files in row order from each row's file path.
    pub(super) fn new(paths: impl Iterator<Item = String>) -> Self {
        let mut files = Self::default();
        let mut last: Option<String> = None;
        for path in paths {
            if last.as_ref() != Some(&path) {
                files.count += 1;
                last = Some(path);
            }
            files.row_file.push(files.count as u32 - 1);
        }
        files
    }
}

/// Pass 1 and the blend: the re-scored rows, or `None` when the flat ranking stands.
pub(super) fn blend(
    settings: &Hierarchy,
    files: &Files,
    plans: &[Plan<'_>],
    n_pat: usize,
    masks: &RowMasks,
    scored: &[(usize, f64)],
    ideal: f64,
) -> (Option<Vec<(usize, f64)>>, SearchMode) {
    let flat = |reason: String| {
        (
            None,
            SearchMode {
                hierarchical: false,
                reason,
            },
        )
    };
    if scored.is_empty() || ideal <= 0.0 {
        return flat("no section matched".into());
    }
    // File masks: the union of the masks of each file's matching rows.
    let mut scratch = vec![0u16; n_pat];
    let mut touched: Vec<usize> = Vec::new();
    let mut df = vec![0usize; n_pat];
    // (file, curated, range in `items`)
    let mut file_units: Vec<(u32, bool, usize, usize)> = Vec::new();
    let mut items: Vec<(u32, u16)> = Vec::new();
    let mut current: Option<(u32, bool)> = None;
    let mut flush =
        |current: Option<(u32, bool)>, touched: &mut Vec<usize>, scratch: &mut [u16]| {
            let Some((file, curated)) = current else {
                return;
            };
            let start = items.len();
            for p in touched.drain(..) {
                items.push((p as u32, scratch[p]));
                df[p] += 1;
                scratch[p] = 0;
            }
            file_units.push((file, curated, start, items.len()));
        };
    for (i, &row) in masks.rows.iter().enumerate() {
        let file = files.row_file[row];
        if current.is_some_and(|(f, _)| f != file) {
            flush(current, &mut touched, &mut scratch);
            current = None;
        }
        let curated = current.is_some_and(|(_, c)| c) || masks.curated[i];
        current = Some((file, curated));
        for &(p, m) in masks.row(i) {
            let p = p as usize;
            if scratch[p] == 0 {
                touched.push(p);
            }
            scratch[p] |= m;
        }
    }
    flush(current, &mut touched, &mut scratch);

    let scorer = Scorer::new(plans, &df, files.count);
    let file_ideal = scorer.ideal();
    let mut ranked: Vec<(u32, f64)> = file_units
        .iter()
        .map(|&(file, curated, start, end)| (file, scorer.score(&items[start..end], curated, None)))
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let best = ranked.first().map_or(0.0, |f| f.1);
    if file_ideal <= 0.0 || best / file_ideal < CONFIDENT {
        return flat(format!(
            "no confident file: the best file scores {:.2} of the ideal (needs {CONFIDENT})",
            if file_ideal > 0.0 {
                best / file_ideal
            } else {
                0.0
            }
        ));
    }
    let cut = settings.files.max(1);
    if let Some(&(_, next)) = ranked.get(cut)
        && next >= DISTINCT * best
    {
        return flat(format!(
            "top files indistinguishable: file #{} scores {:.2} of the best",
            cut + 1,
            next / best
        ));
    }
    let mut file_score = vec![None; files.count];
    for &(file, score) in ranked.iter().take(cut) {
        file_score[file as usize] = Some((score / file_ideal).min(1.0));
    }
    let alpha = settings.alpha.clamp(0.0, 1.0);
    let blended = scored
        .iter()
        .map(|&(row, score)| {
            let section = (score / ideal).min(1.0);
            let file = file_score[files.row_file[row] as usize].unwrap_or(0.0);
            (row, alpha * section + (1.0 - alpha) * file)
        })
        .collect();
    (
        Some(blended),
        SearchMode {
            hierarchical: true,
            reason: format!(
                "best of {} matching files scores {:.2} of the ideal; sections of the top {} blended with α = {alpha}",
                ranked.len(),
                (best / file_ideal).min(1.0),
                cut.min(ranked.len())
            ),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::Files;

    #[test]
    fn files_are_numbered_in_row_order() {
        let files = Files::new(
            ["a.json", "a.json", "b.json", "c.json", "c.json"]
                .into_iter()
                .map(String::from),
        );
        assert_eq!(files.row_file, vec![0, 0, 1, 2, 2]);
        assert_eq!(files.count, 3);
    }
}
