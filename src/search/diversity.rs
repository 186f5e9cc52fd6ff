//! Result diversity at search time, applied to a ranking after it is scored.
//!
//! `--exclude GLOB` drops rows whose file matches (e.g. `javadoc/**`), and
//! `--group-by file` shows at most `per_file` sections of each file and
//! folds the file's other sections, which rank above the last result shown,
//! into its best result's `more`. Both run before the `--top` cut: the
//! searcher asks for a deeper ranking and refills the list from further down.

use globset::GlobSet;

use crate::error::{Error, Result};

/// What `--exclude` and `--group-by` ask of a ranking (the default: nothing).
#[derive(Debug, Clone, Default)]
pub struct Diversity {
    /// Files (relative to the knowledge directory) never shown.
    exclude: Option<GlobSet>,
    /// Sections shown per file (`--group-by file`), `None` without grouping.
    per_file: Option<usize>,
}

/// One kept result of [`Diversity::apply`]: its position in the input
/// ranking and the positions of the sections folded into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Kept {
    /// Position in the input ranking.
    pub(crate) at: usize,
    /// Positions of the same file's sections folded into this one, best first.
    pub(crate) folded: Vec<usize>,
}

impl Diversity {
    /// Checks the exclude globs (the dialect of `kbidx.toml` `exclude`) and
    /// the per-file count; `per_file: None` leaves results ungrouped.
    pub fn new(exclude: &[String], per_file: Option<usize>) -> Result<Self> {
        if per_file == Some(0) {
            return Err(Error::Usage("--per-file must be at least 1".into()));
        }
        let exclude = if exclude.is_empty() {
            None
        } else {
            Some(crate::knowledge::glob_set(exclude)?)
        };
        Ok(Self { exclude, per_file })
    }

    /// Whether the ranking passes through unchanged.
    pub fn is_off(&self) -> bool {
        self.exclude.is_none() && self.per_file.is_none()
    }

    /// Whether `file` is excluded.
    pub(crate) fn excludes(&self, file: &str) -> bool {
        self.exclude.as_ref().is_some_and(|set| set.is_match(file))
    }

    /// The results to show from a ranking whose files are `files` (best
    /// first): excluded files dropped, at most `per_file` sections per file
    /// (the rest folded into the file's best result), at most `top` results.
    /// Scanning stops at the `top`-th result, so a folded section always
    /// ranked above the last result shown.
    pub(crate) fn apply(&self, files: &[&str], top: usize) -> Vec<Kept> {
        let mut kept: Vec<Kept> = Vec::new();
        // Per file: its results shown so far and the position of its best in `kept`.
        let mut shown: std::collections::HashMap<&str, (usize, usize)> =
            std::collections::HashMap::new();
        for (at, &file) in files.iter().enumerate() {
            if kept.len() == top {
                break;
            }
            if self.excludes(file) {
                continue;
            }
            match (self.per_file, shown.get_mut(file)) {
                (Some(limit), Some((count, best))) if *count >= limit => {
                    kept[*best].folded.push(at);
                }
                (_, Some((count, _))) => {
                    *count += 1;
                    kept.push(Kept {
                        at,
                        folded: Vec::new(),
                    });
                }
                (_, None) => {
                    shown.insert(file, (1, kept.len()));
                    kept.push(Kept {
                        at,
                        folded: Vec::new(),
                    });
                }
            }
        }
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(kept: &[Kept]) -> Vec<(usize, Vec<usize>)> {
        kept.iter().map(|k| (k.at, k.folded.clone())).collect()
    }

    #[test]
    fn exclude_drops_matching_files_and_refills_to_top() -> Result<()> {
        let d = Diversity::new(&["javadoc/**".into()], None)?;
        let files = [
            "javadoc/a.json",
            "guide/b.json",
            "javadoc/x/c.json",
            "d.json",
            "e.json",
        ];
        assert_eq!(shown(&d.apply(&files, 2)), vec![(1, vec![]), (3, vec![])]);
        Ok(())
    }

    #[test]
    fn group_by_file_folds_later_sections_into_the_best() -> Result<()> {
        let d = Diversity::new(&[], Some(1))?;
        let files = ["a", "a", "b", "a", "c", "b", "d"];
        // Stops at the third result: `b` at 5 ranks below it and is not folded.
        assert_eq!(
            shown(&d.apply(&files, 3)),
            vec![(0, vec![1, 3]), (2, vec![]), (4, vec![])]
        );
        let two = Diversity::new(&[], Some(2))?;
        assert_eq!(
            shown(&two.apply(&files, 4)),
            vec![(0, vec![3]), (1, vec![]), (2, vec![]), (4, vec![])]
        );
        Ok(())
    }

    #[test]
    fn bad_globs_and_zero_per_file_are_usage_errors() {
        assert!(matches!(
            Diversity::new(&["a/[".into()], None),
            Err(Error::Usage(m)) if m.contains("a/[")
        ));
        assert!(matches!(Diversity::new(&[], Some(0)), Err(Error::Usage(_))));
        assert!(Diversity::default().is_off());
    }
}
