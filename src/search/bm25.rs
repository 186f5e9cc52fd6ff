//! A plain BM25 ranking over section text: the reference method of `kbidx eval`.
//!
//! Not used by `kbidx search`. [`Bm25Index::build`] reads every row's section
//! from the knowledge directory, makes a document of title + hints + section
//! text, and indexes its content words ([`terms`]); [`Bm25Index::search`]
//! ranks rows for a [`Query`] with standard Okapi BM25 (k1 = 1.2, b = 0.75).
//! It tells how far ranking on the full section text gets, as a yardstick for
//! kbidx's scoring. [`Bm25Index::search_rrf`] runs it once per keyword and
//! fuses the rankings by reciprocal rank (`kbidx eval --scoring bm25-rrf`).

use std::collections::HashMap;
use std::path::Path;

use crate::error::Result;
use crate::index::model::Index;
use crate::knowledge::content::Library;
use crate::search::Query;
pub(crate) use crate::text::terms;

/// Term-frequency saturation.
const K1: f64 = 1.2;
/// Length normalisation.
const B: f64 = 0.75;
/// Reciprocal rank fusion's constant (the usual 60): a row's share from one
/// ranking is `1 / (RRF_K + rank)`.
const RRF_K: f64 = 60.0;

/// An inverted index of the rows' documents.
#[derive(Debug, Default)]
pub(crate) struct Bm25Index {
    /// Term → id.
    ids: HashMap<String, usize>,
    /// Per term id: (row, term frequency), rows ascending.
    postings: Vec<Vec<(usize, u32)>>,
    /// Per row: number of terms in its document.
    lengths: Vec<u32>,
    /// Mean document length (at least 1).
    average: f64,
}

impl Bm25Index {
    /// Indexes every row of `index` with its section text from `knowledge`
    /// (a section that cannot be read counts as empty text).
    pub(crate) fn build(index: &Index, knowledge: &Path) -> Result<Self> {
        let mut library = Library::new(knowledge);
        let docs: Vec<String> = index
            .entries
            .iter()
            .map(|e| {
                let content = library.section(&e.reference).unwrap_or_default();
                format!("{}\n{}\n{}", e.title, e.hints, content)
            })
            .collect();
        Self::from_documents(&docs)
    }

    /// Indexes one document per row (in row order).
    pub(crate) fn from_documents(docs: &[String]) -> Result<Self> {
        // Single-threaded: the fulltext corpus (9,376 sections, 8 MB) takes under a second.
        let tokenized = docs.iter().map(|d| terms(d)).collect::<Result<Vec<_>>>()?;
        let mut index = Self::default();
        for (row, words) in tokenized.into_iter().enumerate() {
            index.lengths.push(words.len() as u32);
            let mut tf: HashMap<usize, u32> = HashMap::new();
            for w in words {
                let next = index.ids.len();
                let id = *index.ids.entry(w).or_insert(next);
                if id == index.postings.len() {
                    index.postings.push(Vec::new());
                }
                *tf.entry(id).or_default() += 1;
            }
            for (id, n) in tf {
                index.postings[id].push((row, n));
            }
        }
        let total: u64 = index.lengths.iter().map(|&l| u64::from(l)).sum();
        index.average = (total as f64 / index.lengths.len().max(1) as f64).max(1.0);
        Ok(index)
    }

    /// Number of rows indexed.
    pub(crate) fn len(&self) -> usize {
        self.lengths.len()
    }

    /// Ranks rows for `query` (each keyword's normalised form tokenised like the
    /// documents; distinct terms only). Returns (row, score) for the best `top`
    /// rows with a positive score, by score descending, then row ascending.
    pub(crate) fn search(&self, query: &Query, top: usize) -> Result<Vec<(usize, f64)>> {
        let mut query_terms: Vec<String> = Vec::new();
        for k in &query.keywords {
            for t in terms(&k.norm)? {
                if !query_terms.contains(&t) {
                    query_terms.push(t);
                }
            }
        }
        let mut ranked = self.rank(&query_terms);
        ranked.truncate(top);
        Ok(ranked)
    }

    /// Ranks rows by BM25 once per keyword of `query` and fuses the rankings
    /// by reciprocal rank: a row scores `Σ 1 / (RRF_K + rank)` over the
    /// keywords that rank it (rank from 1). The best `top` (row, score), by
    /// score descending, then row ascending. The reference method for
    /// levelled keywords: each keyword is a search of its own, as an agent's
    /// keywords are.
    pub(crate) fn search_rrf(&self, query: &Query, top: usize) -> Result<Vec<(usize, f64)>> {
        let mut fused: HashMap<usize, f64> = HashMap::new();
        let mut seen: Vec<&str> = Vec::new();
        for k in &query.keywords {
            if seen.contains(&k.norm.as_str()) {
                continue;
            }
            seen.push(&k.norm);
            let mut query_terms: Vec<String> = Vec::new();
            for t in terms(&k.norm)? {
                if !query_terms.contains(&t) {
                    query_terms.push(t);
                }
            }
            for (rank, (row, _)) in self.rank(&query_terms).into_iter().enumerate() {
                *fused.entry(row).or_default() += 1.0 / (RRF_K + rank as f64 + 1.0);
            }
        }
        let mut ranked: Vec<(usize, f64)> = fused.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.truncate(top);
        Ok(ranked)
    }

    /// Every row with a positive BM25 score for `query_terms`, by score
    /// descending, then row ascending.
    fn rank(&self, query_terms: &[String]) -> Vec<(usize, f64)> {
        let n = self.len() as f64;
        let mut scores: HashMap<usize, f64> = HashMap::new();
        for t in query_terms {
            let Some(&id) = self.ids.get(t) else { continue };
            let postings = &self.postings[id];
            let idf = idf(n, postings.len() as f64);
            for &(row, tf) in postings {
                let tf = f64::from(tf);
                let len = f64::from(self.lengths[row]);
                let norm = K1 * (1.0 - B + B * len / self.average);
                *scores.entry(row).or_default() += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        let mut ranked: Vec<(usize, f64)> = scores.into_iter().filter(|&(_, s)| s > 0.0).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked
    }
}

/// BM25's idf of a word in `df` of `n` documents (never negative): one
/// definition for every stage that weighs words by rarity.
pub(crate) fn idf(n: f64, df: f64) -> f64 {
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Level;

    fn query(words: &[&str]) -> Query {
        let mut q = Query::default();
        for w in words {
            q.push(w, Level::L3, 1.0);
        }
        q
    }

    #[test]
    fn terms_keep_content_words() -> Result<()> {
        let t = terms("トランザクションをコミットする。UniversalDao で検索した")?;
        for word in ["トランザクション", "コミット", "universaldao", "検索"] {
            assert!(t.iter().any(|w| w == word), "{word} not in {t:?}");
        }
        for word in ["を", "で", "。"] {
            assert!(!t.iter().any(|w| w == word), "{word} in {t:?}");
        }
        Ok(())
    }

    #[test]
    fn ranks_by_bm25() -> Result<()> {
        let docs: Vec<String> = [
            "ページング\nページ 件数\nUniversalDao の per と page でページングする。",
            "楽観的ロック\nバージョン\n排他制御はバージョン番号で行う。",
            "トランザクション制御\nコミット\nトランザクションの境界でコミットする。トランザクションが失敗するとロールバックする。",
            "ログ出力\nログ\nログを出力する。",
        ]
        .map(str::to_owned)
        .to_vec();
        let index = Bm25Index::from_documents(&docs)?;
        assert_eq!(index.len(), 4);
        let rows = |hits: &[(usize, f64)]| hits.iter().map(|h| h.0).collect::<Vec<_>>();

        // A compound keyword is split into its tokens: トランザクション (row 2) and
        // 制御 (rows 1 and 2); row 2 has both.
        let hits = index.search(&query(&["トランザクション制御"]), 10)?;
        assert_eq!(rows(&hits), [2, 1], "{hits:?}");

        // More occurrences score higher; rows without any term are not returned.
        let hits = index.search(&query(&["ページング", "ロック"]), 10)?;
        assert_eq!(rows(&hits), [0, 1], "{hits:?}");
        assert!(hits[0].1 > hits[1].1, "{hits:?}");

        // Equal scores break on row order; top truncates.
        let hits = index.search(&query(&["ログ", "ページング"]), 10)?;
        assert_eq!(rows(&hits).len(), 2, "{hits:?}");
        assert_eq!(index.search(&query(&["ログ", "ページング"]), 1)?.len(), 1);

        assert!(index.search(&query(&["xyzzy"]), 10)?.is_empty());
        assert!(index.search(&query(&[]), 10)?.is_empty());
        Ok(())
    }
}
