//! Context expansion (`search --expand N`): the linked neighbours of the
//! ranked results, for an agent that has budget left after them.
//!
//! The results are walked in rank order; each contributes the sections it
//! links to (in order of appearance), then the sections that link to it (in
//! index order), skipping what is already listed, until N neighbours are
//! found. The order follows the ranking, so the best results' neighbours
//! come first and the output is deterministic.

use std::collections::{HashMap, HashSet};

use super::Link;

/// The links of an index, by section, for many look-ups.
#[derive(Debug, Default)]
pub(crate) struct Graph<'a> {
    outgoing: HashMap<&'a str, Vec<&'a str>>,
    incoming: HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> Graph<'a> {
    /// The graph of `links` (in their order).
    pub(crate) fn new(links: &'a [Link]) -> Self {
        let mut graph = Self::default();
        for link in links {
            graph.outgoing.entry(&link.from).or_default().push(&link.to);
            graph.incoming.entry(&link.to).or_default().push(&link.from);
        }
        graph
    }

    /// Up to `n` neighbours of `ranked` (references, best first) that are
    /// not in it: `(neighbour, via)`, `via` being the result that links to
    /// it or that it links to.
    pub(crate) fn neighbours(&self, ranked: &[&str], n: usize) -> Vec<(&'a str, String)> {
        let mut listed: HashSet<&str> = ranked.iter().copied().collect();
        let mut out = Vec::new();
        for &result in ranked {
            let around = self
                .outgoing
                .get(result)
                .into_iter()
                .chain(self.incoming.get(result))
                .flatten();
            for &neighbour in around {
                if out.len() == n {
                    return out;
                }
                if listed.insert(neighbour) {
                    out.push((neighbour, result.to_owned()));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_follow_the_ranking() {
        let links: Vec<Link> = [("a", "x"), ("a", "b"), ("b", "y"), ("z", "a"), ("c", "x")]
            .iter()
            .map(|(f, t)| Link {
                from: (*f).into(),
                to: (*t).into(),
            })
            .collect();
        let graph = Graph::new(&links);
        // (ranked, n, neighbours with their via)
        type Case<'a> = (&'a [&'a str], usize, &'a [(&'a str, &'a str)]);
        let cases: &[Case] = &[
            (&["a", "b"], 10, &[("x", "a"), ("z", "a"), ("y", "b")]),
            (&["a", "b"], 2, &[("x", "a"), ("z", "a")]),
            (&["b"], 10, &[("y", "b"), ("a", "b")]),
            (&["q"], 10, &[]),
            (&["a"], 0, &[]),
        ];
        for (ranked, n, want) in cases {
            let got = graph.neighbours(ranked, *n);
            let want: Vec<(&str, String)> =
                want.iter().map(|(r, v)| (*r, (*v).to_owned())).collect();
            assert_eq!(got, want, "{ranked:?} {n}");
        }
    }
}
