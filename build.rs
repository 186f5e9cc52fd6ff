//! Build script: compiles the IPADIC dictionary for the Japanese tokenizer.
//!
//! By default the dictionary is built offline from Debian's `mecab-ipadic`
//! sources (EUC-JP CSV files plus `matrix.def`, `char.def` and `unk.def`) with
//! lindera's own `DictionaryBuilder`, into `$OUT_DIR/lindera-ipadic/`. The
//! crate then embeds those files with `include_bytes!` (see
//! `src/matcher/tokenize.rs`), so the binary needs no dictionary at run time.
//!
//! * `KBIDX_IPADIC_DIR` overrides the source directory
//!   (default `/usr/share/mecab/dic/ipadic`).
//! * With the `download-ipadic` feature the build is skipped and lindera's
//!   `embed-ipadic` (which downloads IPADIC at build time) is used instead.

use std::env;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use lindera_dictionary::builder::DictionaryBuilder;
use lindera_dictionary::dictionary::character_definition::CharacterDefinition;
use lindera_dictionary::dictionary::metadata::Metadata;
use lindera_dictionary::dictionary::schema::Schema;

/// Where Debian's `mecab-ipadic` package installs the dictionary sources.
const DEFAULT_IPADIC_DIR: &str = "/usr/share/mecab/dic/ipadic";
/// Environment variable that overrides [`DEFAULT_IPADIC_DIR`].
const IPADIC_DIR_ENV: &str = "KBIDX_IPADIC_DIR";
/// Sub-directory of `OUT_DIR` the built dictionary is written to.
const OUTPUT_SUBDIR: &str = "lindera-ipadic";
/// Files a mecab-ipadic source directory must have besides its `*.csv` files.
const REQUIRED_FILES: [&str; 3] = ["matrix.def", "char.def", "unk.def"];

fn main() -> ExitCode {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed={IPADIC_DIR_ENV}");

    if env::var_os("CARGO_FEATURE_DOWNLOAD_IPADIC").is_some() {
        // lindera-ipadic's own build script fetches and builds the dictionary.
        return ExitCode::SUCCESS;
    }

    match build() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            // `cargo:warning` lines are shown even when the script succeeds;
            // on failure cargo prints stderr, so print the message there.
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Builds the dictionary into `$OUT_DIR/lindera-ipadic`.
fn build() -> Result<(), String> {
    let source = env::var_os(IPADIC_DIR_ENV)
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from(DEFAULT_IPADIC_DIR), PathBuf::from);
    check_source(&source)?;
    // A directory path makes cargo rerun the script when any file in it changes.
    println!("cargo:rerun-if-changed={}", source.display());

    let out_dir = env::var_os("OUT_DIR").ok_or("kbidx: OUT_DIR is not set (not run by cargo?)")?;
    let out_dir = PathBuf::from(out_dir);
    let output = out_dir.join(OUTPUT_SUBDIR);
    if output.exists() {
        std::fs::remove_dir_all(&output)
            .map_err(|e| format!("kbidx: cannot clear {}: {e}", output.display()))?;
    }

    DictionaryBuilder::new(ipadic_metadata())
        .build_dictionary(&source, &output)
        .map_err(|e| {
            format!(
                "kbidx: building the IPADIC dictionary from {} failed: {e}",
                source.display()
            )
        })?;

    // Re-encode the character definition as JSON: lindera's rkyv loader
    // rebuilds a 64K-entry BMP lookup table on every load (~0.5 ms); the serde
    // path leaves that table empty and lookups fall back to a binary search.
    let char_def_bin = std::fs::read(output.join("char_def.bin"))
        .map_err(|e| format!("kbidx: cannot read char_def.bin: {e}"))?;
    let char_def = CharacterDefinition::load(&char_def_bin)
        .map_err(|e| format!("kbidx: cannot load char_def.bin: {e}"))?;
    let json = serde_json::to_vec(&char_def).map_err(|e| format!("kbidx: {e}"))?;
    std::fs::write(output.join("char_def.json"), json)
        .map_err(|e| format!("kbidx: cannot write char_def.json: {e}"))?;

    // src/matcher/tokenize.rs include_bytes!es the files from this directory.
    println!("cargo:rustc-env=KBIDX_IPADIC_OUT={}", output.display());
    Ok(())
}

/// Fails with an actionable message unless `dir` looks like mecab-ipadic sources.
fn check_source(dir: &Path) -> Result<(), String> {
    let has_csv = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .any(|e| e.path().extension().is_some_and(|x| x == "csv"))
        })
        .unwrap_or(false);
    let missing: Vec<&str> = REQUIRED_FILES
        .into_iter()
        .filter(|f| !dir.join(f).is_file())
        .collect();
    if has_csv && missing.is_empty() {
        return Ok(());
    }
    let what = if has_csv {
        format!(" (missing {})", missing.join(", "))
    } else {
        String::new()
    };
    Err(format!(
        "kbidx: IPADIC sources not found at {dir}{what}. Install them with \
         `apt-get install mecab-ipadic`, or set {IPADIC_DIR_ENV} to an unpacked \
         mecab-ipadic directory (EUC-JP *.csv, matrix.def, char.def, unk.def), \
         or build with `--features download-ipadic` where the internet is reachable.",
        dir = dir.display()
    ))
}

/// The same metadata lindera-ipadic 6.2.0 ships (`metadata.json`), except
/// that Debian's sources are EUC-JP where lindera's tarball is UTF-8.
fn ipadic_metadata() -> Metadata {
    let fields = [
        "surface",
        "left_context_id",
        "right_context_id",
        "cost",
        "part_of_speech",
        "part_of_speech_subcategory_1",
        "part_of_speech_subcategory_2",
        "part_of_speech_subcategory_3",
        "conjugation_form",
        "conjugation_type",
        "base_form",
        "reading",
        "pronunciation",
    ];
    let user_fields = ["surface", "part_of_speech", "reading"];
    Metadata::new(
        "ipadic".to_string(),
        "EUC-JP".to_string(),
        -10000,
        0,
        0,
        "*".to_string(),
        true,
        false,
        true,
        Schema::new(fields.map(String::from).to_vec()),
        Schema::new(user_fields.map(String::from).to_vec()),
    )
}
