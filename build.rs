//! Build script: compiles the IPADIC dictionary for the Japanese tokenizer.
//!
//! The dictionary is built offline from the mecab-ipadic 2.7.0-20070801
//! sources (EUC-JP CSV files plus `matrix.def`, `char.def` and `unk.def`, as
//! Debian packages them) that the repository carries zstd-compressed in
//! `dict/` (licence: `dict/COPYING.mecab-ipadic`). They are unpacked into
//! `$OUT_DIR` with pure-Rust decoders (ruzstd, tar) and compiled by lindera's
//! own `DictionaryBuilder` into `$OUT_DIR/lindera-ipadic/`; the crate embeds
//! those files with `include_bytes!` (see `src/text/tokenize.rs`), so neither
//! the build nor the binary needs a system package or the network.
//!
//! * `KBIDX_IPADIC_DIR` builds from an unpacked source directory instead
//!   (e.g. Debian's `/usr/share/mecab/dic/ipadic`). The system directory is
//!   never used implicitly: a different IPADIC there would silently change
//!   tokenisation, and with it every index.
//! * With the `download-ipadic` feature the build is skipped and lindera's
//!   `embed-ipadic` (which downloads IPADIC at build time) is used instead.

use std::env;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use lindera_dictionary::builder::DictionaryBuilder;
use lindera_dictionary::dictionary::character_definition::CharacterDefinition;
use lindera_dictionary::dictionary::metadata::Metadata;
use lindera_dictionary::dictionary::schema::Schema;

/// The bundled sources, relative to the crate root.
const BUNDLED_ARCHIVE: &str = "dict/mecab-ipadic-2.7.0-20070801.tar.zst";
/// Environment variable naming an unpacked source directory to use instead.
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
    let out_dir = env::var_os("OUT_DIR").ok_or("kbidx: OUT_DIR is not set (not run by cargo?)")?;
    let out_dir = PathBuf::from(out_dir);
    let source = match env::var_os(IPADIC_DIR_ENV).filter(|v| !v.is_empty()) {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            // A directory path makes cargo rerun the script when any file in it changes.
            println!("cargo:rerun-if-changed={}", dir.display());
            dir
        }
        // Only the archive is watched (see `unpack_bundled`): the directory it is
        // unpacked into is rewritten on every run and would make every build rerun us.
        None => unpack_bundled(&out_dir)?,
    };
    check_source(&source)?;
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

/// Unpacks [`BUNDLED_ARCHIVE`] into `$OUT_DIR/ipadic-src` and returns that directory.
fn unpack_bundled(out_dir: &Path) -> Result<PathBuf, String> {
    let manifest =
        env::var_os("CARGO_MANIFEST_DIR").ok_or("kbidx: CARGO_MANIFEST_DIR is not set")?;
    let archive = Path::new(&manifest).join(BUNDLED_ARCHIVE);
    println!("cargo:rerun-if-changed={}", archive.display());
    let file = std::fs::File::open(&archive).map_err(|e| {
        format!(
            "kbidx: cannot open the bundled IPADIC sources {}: {e}. A checkout without \
             them (e.g. a shallow or filtered clone) can set {IPADIC_DIR_ENV} to an \
             unpacked mecab-ipadic directory instead.",
            archive.display()
        )
    })?;
    let decoder = ruzstd::decoding::StreamingDecoder::new(std::io::BufReader::new(file))
        .map_err(|e| format!("kbidx: {}: not a zstd archive: {e}", archive.display()))?;
    let dest = out_dir.join("ipadic-src");
    if dest.exists() {
        std::fs::remove_dir_all(&dest)
            .map_err(|e| format!("kbidx: cannot clear {}: {e}", dest.display()))?;
    }
    tar::Archive::new(decoder)
        .unpack(&dest)
        .map_err(|e| format!("kbidx: cannot unpack {}: {e}", archive.display()))?;
    Ok(dest)
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
        "kbidx: IPADIC sources not found at {dir}{what}. Unset {IPADIC_DIR_ENV} to use \
         the sources bundled in dict/, or point it at an unpacked mecab-ipadic \
         directory (EUC-JP *.csv, matrix.def, char.def, unk.def).",
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
