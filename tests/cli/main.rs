//! kbidx's integration tests, compiled into this one test binary.
//!
//! One binary, not one per file: a test binary that uses the library links it with its
//! 50 MB embedded Japanese dictionary, so each extra binary costs another link whenever the
//! library changes and ~160 MB of disk, for no gain: none of these tests needs a process of
//! its own (none changes the environment, the working directory or other global state). Modules by subject:
//!
//! * end to end, through the real `kbidx` binary in a sandbox ([`common::Sandbox`], relative
//!   paths only): `build`, `search`, `read`, `eval` and `usage` snapshot transcripts
//!   (`snapshots/cli__<module>__<name>.snap`: the command line, exit code, stdout and stderr);
//!   `reliability` checks the exit code and exact message of each bad input in
//!   `docs/reliability.md`'s catalogue; `mcp` talks JSON-RPC to `kbidx mcp` over its pipes;
//!   `limit` checks `body_limit` (over it, searches rank on the index alone); `init` sets a
//!   repository up (its nabledge-6-small run `#[ignore]`d);
//! * through the library: `accuracy` (ranking floors and report on kbidx's own knowledge),
//!   `splits` (the dev/test question sets: the shipped ranking and BM25, floors and reports;
//!   the nabledge ones `#[ignore]`d),
//!   `index_fresh` (the committed `index/index.toon` is up to date) and `properties`
//!   (proptest: TOON round trips, build determinism, the word index equals the scan);
//! * over `../shared`, `#[ignore]`d (`cargo test --release -- --ignored`): `shared` (the
//!   nabledge-6 corpora), `suggest` (every suggestion of the dev questions is a whole word of
//!   the knowledge) and `toon_conformance` (the official TOON fixtures).
//!
//! Fixtures: `tests/fixtures/knowledge/` is a small hand-written knowledge tree (Japanese and
//! English files, nested directories, the three cell shapes TOON must quote, a
//! fulltext-schema file and a legacy `index.toon` with a broken header that discovery must
//! skip); `tests/fixtures/queries.jsonl` is the query set of `accuracy` and `eval`.
#![allow(clippy::unwrap_used)]

#[path = "../common/mod.rs"]
mod common;

mod accuracy;
mod build;
mod eval;
mod index_fresh;
mod init;
mod layers;
mod limit;
mod lint;
mod mcp;
mod pg;
mod properties;
mod read;
mod reliability;
mod search;
mod shared;
mod splits;
mod suggest;
mod toon_conformance;
mod usage;
