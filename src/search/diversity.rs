//! Result diversity at search time, applied to a ranking after it is scored.
//!
//! `--exclude GLOB` drops rows whose file matches (e.g. `javadoc/**`), and
//! `--group-by file` shows at most `per_file` sections of each file and
//! folds the file's other sections, which rank above the last result shown,
//! into its best result's `more`; `--collapse` folds a section whose text is
//! nearly identical to a result above it (two release notes, a create and
//! an update example) into that result's `also` (on by default). All run before the `--top`
//! cut: the searcher asks for a deeper ranking and refills the list from
//! further down.

use globset::GlobSet;

use crate::error::{Error, Result};

/// What `--exclude` and `--group-by` ask of a ranking (the default: nothing).
#[derive(Debug, Clone, Default)]
pub struct Diversity {
    /// Files (relative to the knowledge directory) never shown.
    exclude: Option<GlobSet>,
    /// Sections shown per file (`--group-by file`), `None` without grouping.
    per_file: Option<usize>,
    /// Fold near-duplicate sections (`--collapse`).
    pub(crate) collapse: bool,
}

/// Whether near-duplicates are folded unless `kbidx.toml` or a flag says
/// otherwise. On: with each twin's differing paragraphs handed over with the
/// result it is folded into, fulltext keyword MRR rose on dev (0.771 → 0.778)
/// and on test and every held-out split, and `start`'s answer recall lost no
/// section outside dev (docs/experiments.md, "Twins folded").
pub const DEFAULT_COLLAPSE: bool = true;

/// Jaccard similarity of two sections' shingle sets from which the lower
/// ranked one is folded as a near-duplicate.
pub(crate) const NEAR_DUPLICATE: f64 = 0.9;

/// Characters per shingle: long enough that unrelated Japanese or English
/// text shares few, short enough that an edited word changes few.
const SHINGLE: usize = 5;

/// A section's text signature: the sorted, distinct hashes of its
/// whitespace-normalised, lower-cased character 5-grams.
pub(crate) fn signature(text: &str) -> Vec<u64> {
    let chars: Vec<char> = text
        .split_whitespace()
        .flat_map(|w| w.chars().chain([' ']))
        .flat_map(char::to_lowercase)
        .collect();
    let mut hashes: Vec<u64> = if chars.len() <= SHINGLE {
        vec![xxhash_rust::xxh3::xxh3_64(
            chars.iter().collect::<String>().as_bytes(),
        )]
    } else {
        chars
            .windows(SHINGLE)
            .map(|w| xxhash_rust::xxh3::xxh3_64(w.iter().collect::<String>().as_bytes()))
            .collect()
    };
    hashes.sort_unstable();
    hashes.dedup();
    hashes
}

/// Whether two signatures are near-duplicates (Jaccard ≥ [`NEAR_DUPLICATE`]).
pub(crate) fn near_duplicate(a: &[u64], b: &[u64]) -> bool {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    // |A ∩ B| / |A ∪ B| ≤ |small| / |large|: most pairs stop here.
    if large.is_empty() || (small.len() as f64) < NEAR_DUPLICATE * large.len() as f64 {
        return false;
    }
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < small.len() && j < large.len() {
        match small[i].cmp(&large[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = small.len() + large.len() - common;
    common as f64 >= NEAR_DUPLICATE * union as f64
}

/// One kept result of [`Diversity::apply`]: its position in the input
/// ranking and the positions of the sections folded into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Kept {
    /// Position in the input ranking.
    pub(crate) at: usize,
    /// Positions of the same file's sections folded into this one, best first.
    pub(crate) folded: Vec<usize>,
    /// Positions of the near-duplicates folded into this one (`collapse`), best first.
    pub(crate) twins: Vec<usize>,
}

impl Diversity {
    /// Checks the exclude globs (the dialect of `kbidx.toml` `exclude`) and
    /// the per-file count; `per_file: None` leaves results ungrouped.
    pub fn new(exclude: &[String], per_file: Option<usize>, collapse: bool) -> Result<Self> {
        if per_file == Some(0) {
            return Err(Error::Usage("--per-file must be at least 1".into()));
        }
        let exclude = if exclude.is_empty() {
            None
        } else {
            Some(crate::knowledge::glob_set(exclude)?)
        };
        Ok(Self {
            exclude,
            per_file,
            collapse,
        })
    }

    /// Whether the ranking passes through unchanged.
    pub fn is_off(&self) -> bool {
        self.exclude.is_none() && self.per_file.is_none() && !self.collapse
    }

    /// Whether `file` is excluded.
    pub(crate) fn excludes(&self, file: &str) -> bool {
        self.exclude.as_ref().is_some_and(|set| set.is_match(file))
    }

    /// The results to show from a ranking whose files are `files` (best
    /// first): excluded files dropped, at most `per_file` sections per file
    /// (the rest folded into the file's best result), at most `top` results.
    /// With `collapse`, a section that `similar(position, kept position)`
    /// calls a near-duplicate of a result above it is folded into the first
    /// such result. Scanning stops at the `top`-th result, so a folded
    /// section always ranked above the last result shown.
    pub(crate) fn apply(
        &self,
        files: &[&str],
        top: usize,
        mut similar: impl FnMut(usize, usize) -> bool,
    ) -> Vec<Kept> {
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
            if let (Some(limit), Some(&(count, best))) = (self.per_file, shown.get(file))
                && count >= limit
            {
                kept[best].folded.push(at);
                continue;
            }
            if self.collapse
                && let Some(k) = kept.iter().position(|k| similar(at, k.at))
            {
                kept[k].twins.push(at);
                continue;
            }
            match shown.get_mut(file) {
                Some((count, _)) => {
                    *count += 1;
                    kept.push(Kept {
                        at,
                        folded: Vec::new(),
                        twins: Vec::new(),
                    });
                }
                None => {
                    shown.insert(file, (1, kept.len()));
                    kept.push(Kept {
                        at,
                        folded: Vec::new(),
                        twins: Vec::new(),
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
        kept.iter()
            .map(|k| (k.at, [k.folded.clone(), k.twins.clone()].concat()))
            .collect()
    }

    #[test]
    fn exclude_drops_matching_files_and_refills_to_top() -> Result<()> {
        let d = Diversity::new(&["javadoc/**".into()], None, false)?;
        let files = [
            "javadoc/a.json",
            "guide/b.json",
            "javadoc/x/c.json",
            "d.json",
            "e.json",
        ];
        assert_eq!(
            shown(&d.apply(&files, 2, |_, _| false)),
            vec![(1, vec![]), (3, vec![])]
        );
        Ok(())
    }

    #[test]
    fn group_by_file_folds_later_sections_into_the_best() -> Result<()> {
        let d = Diversity::new(&[], Some(1), false)?;
        let files = ["a", "a", "b", "a", "c", "b", "d"];
        // Stops at the third result: `b` at 5 ranks below it and is not folded.
        assert_eq!(
            shown(&d.apply(&files, 3, |_, _| false)),
            vec![(0, vec![1, 3]), (2, vec![]), (4, vec![])]
        );
        let two = Diversity::new(&[], Some(2), false)?;
        assert_eq!(
            shown(&two.apply(&files, 4, |_, _| false)),
            vec![(0, vec![3]), (1, vec![]), (2, vec![]), (4, vec![])]
        );
        Ok(())
    }

    #[test]
    fn bad_globs_and_zero_per_file_are_usage_errors() {
        assert!(matches!(
            Diversity::new(&["a/[".into()], None, false),
            Err(Error::Usage(m)) if m.contains("a/[")
        ));
        assert!(matches!(
            Diversity::new(&[], Some(0), false),
            Err(Error::Usage(_))
        ));
        assert!(Diversity::default().is_off());
    }

    #[test]
    fn collapse_folds_near_duplicates_into_the_first_similar_result() -> Result<()> {
        let base = "The release notes of version 6u2: the batch handler now closes its \
                    connections, the form tag escapes attributes, and the mail sender retries.";
        let edited = base.replace("6u2", "6u3");
        let other = "Configure the database connection pool in the component definition file.";
        let (a, b, c) = (signature(base), signature(&edited), signature(other));
        assert!(near_duplicate(&a, &b) && near_duplicate(&b, &a));
        assert!(!near_duplicate(&a, &c));
        assert!(near_duplicate(
            &a,
            &signature(&base.to_uppercase().replace(' ', "\n  "))
        ));
        let signatures = [a, c, b];
        let d = Diversity::new(&[], None, true)?;
        let kept = d.apply(&["x", "y", "z"], 3, |i, j| {
            near_duplicate(&signatures[i], &signatures[j])
        });
        assert_eq!(shown(&kept), vec![(0, vec![2]), (1, vec![])]);
        Ok(())
    }
}
