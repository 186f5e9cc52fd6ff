//! The files `kbidx init` writes, as text: made whole (`kbidx.toml`, the
//! skill) or merged into what the repository already has (the pre-commit
//! configuration, the MCP client files), never touching other entries.
//!
//! Everything here is pure: text in, text out, so that the plan is complete
//! (and every existing file parsed) before the first byte is written.

use std::fmt::Write as _;
use std::path::Path;

use crate::error::{Error, Result};

/// Where the knowledge base lives, relative to the repository root.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    /// The knowledge directory.
    pub(crate) knowledge: String,
    /// The index file.
    pub(crate) index: String,
    /// The extraction program, when `kbidx.toml` names one.
    pub(crate) filter: Option<String>,
}

/// What a merge into an existing file comes to.
#[derive(Debug, PartialEq)]
pub(crate) enum Merged {
    /// The file already holds kbidx's entry (as it is, or another one kept
    /// without `--force`): `true` when it differs from the one init makes.
    Present(bool),
    /// The file's new text.
    Text(String),
}

/// `kbidx.toml`: the two paths, every other key at its default.
pub(crate) fn config(layout: &Layout) -> String {
    let mut text = String::from(
        "# kbidx configuration, written by `kbidx init`. Every key is optional; the others\n\
         # and their defaults: kbidx's README, \"Configuration\". Paths are relative to this file.\n\n\
         # The knowledge files: every *.json below this directory.\n",
    );
    let _ = writeln!(text, "knowledge = {}", toml_string(&layout.knowledge));
    text.push_str("\n# The index `kbidx build` writes and `kbidx search` reads.\n");
    let _ = writeln!(text, "index = {}", toml_string(&layout.index));
    text
}

/// A TOML basic string (the same escapes as JSON for what a path holds).
fn toml_string(value: &str) -> String {
    serde_json::Value::from(value).to_string()
}

/// The example a skill shows: a question made of a section's own title and
/// that section's reference.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Example {
    /// The question (a title of the knowledge).
    pub(crate) question: String,
    /// The reference of the section it comes from.
    pub(crate) reference: String,
}

/// `SKILL.md` for this knowledge base: short, generic (the agent's flow in
/// three steps), with its paths and an example from its own titles.
pub(crate) fn skill(name: &str, topics: &[String], layout: &Layout, example: &Example) -> String {
    let about = if topics.is_empty() {
        String::new()
    } else {
        format!(" (topics such as {})", topics.join(", "))
    };
    let description = format!(
        "Answers questions from the {name} knowledge base in {}/{about} by searching it with \
         kbidx and reading the sections found. Use it whenever a question may be answered there.",
        layout.knowledge
    );
    let file = example
        .reference
        .split_once('#')
        .map_or(example.reference.as_str(), |(file, _)| file);
    format!(
        "---\n\
         name: {name}\n\
         description: {description}\n\
         ---\n\
         \n\
         # {name}: answer from the knowledge base\n\
         \n\
         The knowledge is the JSON files under `{knowledge}/`; `kbidx` searches their sections\n\
         through the index `{index}` (kept fresh by `kbidx build`, which the pre-commit hook\n\
         runs). Run the commands from the repository root, where `kbidx.toml` is.\n\
         \n\
         ## 1. Search\n\
         \n\
         ```sh\n\
         kbidx search \"<question>\" --max-tokens 6000\n\
         ```\n\
         \n\
         Pass the user's question as it is written (Japanese or English), for example:\n\
         \n\
         ```sh\n\
         kbidx search {question} --max-tokens 6000\n\
         ```\n\
         \n\
         The output is the best sections first, within the budget: per result a line\n\
         `[rank] reference  title  (score)`, then the section's text from its start (`…` where\n\
         the budget cut it; results past the budget as their line only). A line `[#anchor]`\n\
         starts another section of the same file, `[file.json#anchor] (…)` a section repeating\n\
         text above. The last line says what the output cost.\n\
         \n\
         ## 2. Read more when needed\n\
         \n\
         ```sh\n\
         {read}\
         ```\n\
         \n\
         A link in a section's text is read by its path from `{knowledge}/`, its `#heading` as\n\
         written.\n\
         \n\
         ## 3. Answer\n\
         \n\
         - Answer from the sections that answer the question, citing their references.\n\
         - Search again only when what you read does not answer it, with the words the knowledge\n\
         \x20 itself uses in the titles and text you read; never repeat a search's words.\n\
         - Exit 1 (no results), or nothing relevant after a second search: say the knowledge base\n\
         \x20 does not cover it; do not guess. Exit 2: an error; its message says what to fix.\n\
         \n\
         With an MCP client (`.mcp.json`, `.vscode/mcp.json`), the tools `search` (`question`,\n\
         `max_tokens`) and `read` (`references`) of the `kbidx` server print the same.\n",
        description = serde_json::Value::from(description),
        knowledge = layout.knowledge,
        index = layout.index,
        question = quoted(&example.question),
        read = read_lines(&shell_word(&example.reference), &shell_word(file)),
    )
}

/// The `kbidx read` lines of the skill, their comments aligned.
fn read_lines(reference: &str, file: &str) -> String {
    let lines = [
        (
            format!("kbidx read {reference}"),
            "a whole section (several: REF REF…)",
        ),
        (format!("kbidx read {file}"), "the sections of a file"),
        (
            format!("kbidx read {reference} --links"),
            "the section, its links and backlinks",
        ),
    ];
    let width = lines
        .iter()
        .map(|(l, _)| l.chars().count())
        .max()
        .unwrap_or(0);
    lines
        .iter()
        .fold(String::new(), |mut out, (line, comment)| {
            let pad = width - line.chars().count();
            let _ = writeln!(out, "{line}{}  # {comment}", " ".repeat(pad));
            out
        })
}

/// `word` double-quoted for a POSIX shell.
pub(crate) fn quoted(word: &str) -> String {
    let mut out = String::from("\"");
    for c in word.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// `word` as one shell word: double-quoted unless it is plain.
pub(crate) fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_alphanumeric() || "-_./#:@%+=,".contains(c));
    if plain { word.to_owned() } else { quoted(word) }
}

/// `path` as a regular expression (Python's `re`, as pre-commit's `files`).
fn regex_escape(path: &str) -> String {
    let mut out = String::new();
    for c in path.chars() {
        if "\\.^$|?*+()[]{}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The pre-commit repository entry with the `kbidx-build` hook, its lines
/// indented by `indent` spaces (the `-` of the entry at `indent`).
///
/// `repo: local` with `language: system`: the hook runs the `kbidx` that
/// npm, pipx or an archive installed, so nobody needs a Rust toolchain to
/// commit (`language: rust` would compile kbidx on every machine).
fn pre_commit_entry(layout: &Layout, indent: usize) -> String {
    let mut files = format!(
        "^{}/.*\\.json$|^kbidx\\.toml$|^{}$",
        regex_escape(&layout.knowledge),
        regex_escape(&layout.index)
    );
    if let Some(filter) = &layout.filter {
        let _ = write!(files, "|^{}$", regex_escape(filter));
    }
    let pad = " ".repeat(indent);
    let lines = [
        "- repo: local".to_owned(),
        "  hooks:".to_owned(),
        "    # Rebuilds the index; the commit fails when it changed: review and `git add` it."
            .to_owned(),
        "    - id: kbidx-build".to_owned(),
        "      name: kbidx build".to_owned(),
        "      entry: kbidx build --quiet".to_owned(),
        "      language: system".to_owned(),
        "      pass_filenames: false".to_owned(),
        format!("      files: '{}'", files.replace('\'', "''")),
    ];
    lines.iter().fold(String::new(), |mut out, line| {
        let _ = writeln!(out, "{pad}{line}");
        out
    })
}

/// `.pre-commit-config.yaml` with the kbidx hook: a new file, or `existing`
/// with the entry appended to its `repos` list (its text, comments and order
/// kept). An existing kbidx hook (any hook id starting with `kbidx`) is left
/// as it is. Invalid YAML, a top level that is not a mapping or `repos` that
/// is not a list: an error naming `path`.
pub(crate) fn pre_commit(path: &Path, existing: Option<&str>, layout: &Layout) -> Result<Merged> {
    let Some(text) = existing else {
        return Ok(Merged::Text(format!(
            "# pre-commit hooks (https://pre-commit.com): `pre-commit install` once per clone.\n\
             repos:\n{}",
            pre_commit_entry(layout, 2)
        )));
    };
    let repos = yaml_repos(path, text)?;
    if let Some(repos) = &repos
        && repos.iter().any(has_kbidx_hook)
    {
        return Ok(Merged::Present(false));
    }
    let new = append_repo(path, text, layout)?;
    // The text was edited, not re-serialised: parse it again and check that
    // the list is the old one plus the kbidx entry, or refuse.
    let after = yaml_repos(path, &new)?.unwrap_or_default();
    let before = repos.unwrap_or_default();
    let kept = after.len() == before.len() + 1 && after[..before.len()] == before[..];
    if !kept || !after.last().is_some_and(has_kbidx_hook) {
        return Err(Error::data(
            path,
            "cannot add the kbidx hook without changing the file's other entries; \
             add it by hand (docs/commands.md, `init`)",
        ));
    }
    Ok(Merged::Text(new))
}

/// The `repos` list of a pre-commit configuration (`None`: no such key).
fn yaml_repos(path: &Path, text: &str) -> Result<Option<Vec<yaml_rust2::Yaml>>> {
    use yaml_rust2::Yaml;
    let documents = yaml_rust2::YamlLoader::load_from_str(text).map_err(|e| Error::Syntax {
        path: path.to_path_buf(),
        line: e.marker().line().max(1),
        column: e.marker().col() + 1,
        message: format!("invalid YAML: {}", e.info()),
    })?;
    let top = match documents.as_slice() {
        [] | [Yaml::Null] => return Ok(None),
        [top] => top,
        _ => return Err(Error::data(path, "more than one YAML document")),
    };
    let Yaml::Hash(map) = top else {
        return Err(Error::data(
            path,
            "not a pre-commit configuration: the top level is not a mapping",
        ));
    };
    match map.get(&Yaml::String("repos".into())) {
        None | Some(Yaml::Null) => Ok(None),
        Some(Yaml::Array(repos)) => Ok(Some(repos.clone())),
        Some(_) => Err(Error::data(
            path,
            "not a pre-commit configuration: `repos` is not a list",
        )),
    }
}

/// Whether a `repos` entry holds a hook whose id starts with `kbidx`.
fn has_kbidx_hook(repo: &yaml_rust2::Yaml) -> bool {
    repo["hooks"].as_vec().is_some_and(|hooks| {
        hooks
            .iter()
            .any(|h| h["id"].as_str().is_some_and(|id| id.starts_with("kbidx")))
    })
}

/// `text` with the kbidx entry inserted at the end of its block `repos:`
/// list (before the next top-level key and the comments just above it), at
/// the list's own indentation; `repos:` added at the end when there is none.
fn append_repo(path: &Path, text: &str, layout: &Layout) -> Result<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    fn is_key(line: &str) -> Option<&str> {
        line.strip_prefix("repos")
            .or_else(|| line.strip_prefix("\"repos\""))
            .or_else(|| line.strip_prefix("'repos'"))
            .and_then(|rest| rest.trim_start_matches([' ', '\t']).strip_prefix(':'))
    }
    let with_newline = |s: &str| {
        if s.is_empty() || s.ends_with('\n') {
            s.to_owned()
        } else {
            format!("{s}\n")
        }
    };
    let Some(key) = lines.iter().position(|l| is_key(l).is_some()) else {
        return Ok(format!(
            "{}repos:\n{}",
            with_newline(text),
            pre_commit_entry(layout, 2)
        ));
    };
    let value = is_key(lines[key]).unwrap_or_default();
    let value = value.split(" #").next().unwrap_or_default().trim();
    let mut head: Vec<String> = lines[..=key].iter().map(|l| (*l).to_owned()).collect();
    match value {
        "" => {}
        // `repos: []`: becomes a block list holding the entry.
        "[]" => {
            let last = head.len() - 1;
            head[last] = "repos:\n".to_owned();
        }
        _ => {
            return Err(Error::data(
                path,
                "`repos` is written in flow style ([...]); add the kbidx hook by hand \
                 (docs/commands.md, `init`)",
            ));
        }
    }
    let body = &lines[key + 1..];
    let top_level = |line: &str| {
        let first = line.chars().next().unwrap_or(' ');
        !matches!(first, ' ' | '\t' | '#' | '-' | '\n' | '\r')
    };
    let mut end = body.iter().position(|l| top_level(l)).unwrap_or(body.len());
    if end < body.len() {
        // Comments and blank lines just above the next key belong to it.
        while end > 0 && {
            let line = body[end - 1];
            line.trim().is_empty() || line.starts_with('#')
        } {
            end -= 1;
        }
    }
    let indent = body
        .iter()
        .find_map(|l| {
            let trimmed = l.trim_start_matches(' ');
            trimmed.starts_with('-').then(|| l.len() - trimmed.len())
        })
        .unwrap_or(2);
    let mut out: String = head.concat();
    let before: String = body[..end].concat();
    out.push_str(&with_newline(&before));
    out.push_str(&pre_commit_entry(layout, indent));
    out.push_str(&body[end..].concat());
    Ok(out)
}

/// An MCP client file (`.mcp.json`, `.vscode/mcp.json`) with `entry` as the
/// server `kbidx` under `key` (`mcpServers`, `servers`): a new file, or
/// `existing` with the entry added and every other entry kept in its order.
/// A `kbidx` entry already there is kept unless `force`. Invalid JSON (with
/// `line:column`) or a top level or `key` that is not an object: an error
/// naming `path`.
pub(crate) fn mcp(
    path: &Path,
    existing: Option<&str>,
    key: &str,
    entry: serde_json::Value,
    force: bool,
) -> Result<Merged> {
    let mut document = match existing {
        None => serde_json::json!({}),
        Some(text) => {
            let text = text.strip_prefix('\u{feff}').unwrap_or(text);
            if text.trim().is_empty() {
                serde_json::json!({})
            } else {
                serde_json::from_str(text)
                    .map_err(|e| Error::json(path, text, "invalid JSON", &e))?
            }
        }
    };
    let Some(top) = document.as_object_mut() else {
        return Err(Error::data(path, "the top level is not a JSON object"));
    };
    let servers = top.entry(key).or_insert_with(|| serde_json::json!({}));
    let Some(servers) = servers.as_object_mut() else {
        return Err(Error::data(path, format!("`{key}` is not a JSON object")));
    };
    match servers.get("kbidx") {
        Some(current) if *current == entry => return Ok(Merged::Present(false)),
        Some(_) if !force => return Ok(Merged::Present(true)),
        _ => {}
    }
    servers.insert("kbidx".to_owned(), entry);
    let mut text = serde_json::to_string_pretty(&document)
        .map_err(|e| Error::data(path, format!("cannot encode JSON: {e}")))?;
    text.push('\n');
    Ok(Merged::Text(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> Layout {
        Layout {
            knowledge: "docs/knowledge".into(),
            index: "index/index.toon".into(),
            filter: None,
        }
    }

    fn merged(existing: &str) -> Result<Merged> {
        pre_commit(
            Path::new(".pre-commit-config.yaml"),
            Some(existing),
            &layout(),
        )
    }

    fn text(merged: Result<Merged>) -> String {
        match merged {
            Ok(Merged::Text(text)) => text,
            other => panic!("not a text: {other:?}"),
        }
    }

    #[test]
    fn pre_commit_entry_is_appended_to_the_repos_block() {
        let existing = "# mine\nrepos:\n- repo: https://example.org/hooks\n  rev: v1\n  hooks:\n  - id: fmt\n\n# about ci\nci:\n  skip: [fmt]\n";
        let new = text(merged(existing));
        assert!(new.starts_with("# mine\nrepos:\n- repo: https://example.org/hooks\n  rev: v1\n  hooks:\n  - id: fmt\n- repo: local\n"), "{new}");
        assert!(
            new.ends_with("\n\n# about ci\nci:\n  skip: [fmt]\n"),
            "{new}"
        );
        assert!(
            new.contains("files: '^docs/knowledge/.*\\.json$|^kbidx\\.toml$|^index/index\\.toon$'")
        );
        // Appending again finds the hook.
        assert_eq!(merged(&new).ok(), Some(Merged::Present(false)));
    }

    #[test]
    fn pre_commit_cases() {
        // (existing text, what comes of it: the start of the new text or the error)
        let cases: [(&str, &str); 6] = [
            ("", "repos:\n  - repo: local\n"),
            (
                "default_stages: [pre-commit]",
                "default_stages: [pre-commit]\nrepos:\n  - repo: local\n",
            ),
            ("repos: []\n", "repos:\n  - repo: local\n"),
            (
                "repos: [{repo: local, hooks: []}]\n",
                "error: .pre-commit-config.yaml: `repos` is written in flow style",
            ),
            (
                "repos:\n  - repo: x\n   bad: [\n",
                "error: .pre-commit-config.yaml:3:7: invalid YAML: while parsing a block collection",
            ),
            (
                "- a\n- b\n",
                "error: .pre-commit-config.yaml: not a pre-commit configuration: the top level is not a mapping",
            ),
        ];
        for (existing, expected) in cases {
            let got = match merged(existing) {
                Ok(Merged::Text(text)) => text,
                Ok(Merged::Present(_)) => "present".into(),
                Err(e) => format!("error: {e}"),
            };
            assert!(got.starts_with(expected), "{existing:?}: {got}");
        }
    }

    #[test]
    fn mcp_entry_is_merged_keeping_other_servers() {
        let path = Path::new(".mcp.json");
        let entry = serde_json::json!({"command": "kbidx", "args": ["mcp"]});
        let existing = "{\"mcpServers\": {\"z\": {\"command\": \"z\"}}, \"other\": 1}";
        let new = text(mcp(
            path,
            Some(existing),
            "mcpServers",
            entry.clone(),
            false,
        ));
        assert_eq!(
            new,
            "{\n  \"mcpServers\": {\n    \"z\": {\n      \"command\": \"z\"\n    },\n    \"kbidx\": {\n      \"command\": \"kbidx\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  },\n  \"other\": 1\n}\n"
        );
        assert_eq!(
            mcp(path, Some(&new), "mcpServers", entry.clone(), false).ok(),
            Some(Merged::Present(false))
        );
        let other = "{\"mcpServers\": {\"kbidx\": {\"command\": \"/opt/kbidx\"}}}";
        assert_eq!(
            mcp(path, Some(other), "mcpServers", entry.clone(), false).ok(),
            Some(Merged::Present(true))
        );
        assert!(matches!(
            mcp(path, Some(other), "mcpServers", entry.clone(), true),
            Ok(Merged::Text(_))
        ));
        let bad = mcp(
            path,
            Some("{\n  \"mcpServers\": {,}\n}"),
            "mcpServers",
            entry.clone(),
            false,
        );
        assert_eq!(
            bad.err().map(|e| e.to_string()).unwrap_or_default(),
            ".mcp.json:2:18: invalid JSON: key must be a string"
        );
        let bad = mcp(path, Some("[]"), "mcpServers", entry, false);
        assert!(bad.is_err());
    }

    #[test]
    fn shell_words_are_quoted_when_needed() {
        assert_eq!(shell_word("guide/a.json#x"), "guide/a.json#x");
        assert_eq!(shell_word("索引 の鮮度"), "\"索引 の鮮度\"");
        assert_eq!(shell_word("a \"b\" $c"), "\"a \\\"b\\\" \\$c\"");
    }
}
