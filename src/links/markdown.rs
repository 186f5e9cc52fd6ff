//! Finding the links of a section's Markdown: `[text](target)`.
//!
//! Only inline links are knowledge links in the corpora kbidx reads (they are
//! converted from reStructuredText, which has no reference-style links), so
//! that is all this scanner knows. It skips what Markdown does not treat as a
//! link: images (`![alt](src)`), code spans and fenced code blocks (Java
//! code such as `a[i](x)` must not become a link), and escaped brackets.

/// One inline link: its target as written (`../../a/b.json#anchor`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawLink {
    /// The link text, as written between the brackets.
    pub(crate) text: String,
    /// The target, without `<…>` and without a `"title"`.
    pub(crate) target: String,
}

/// The inline links of `text` whose target is a knowledge link: a relative
/// path to a `.json` file (with or without `#anchor`), or `#anchor` alone
/// (a place in the same file). Web links, `mailto:` and assets (images,
/// downloads: the knowledge directory holds JSON only) are left out.
pub(crate) fn knowledge_links(text: &str) -> Vec<RawLink> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for line in text.split('\n') {
        let trimmed = line.trim_start_matches(' ');
        if line.len() - trimmed.len() <= 3 {
            for marker in ["```", "~~~"] {
                if trimmed.starts_with(marker) {
                    fence = match fence {
                        None => Some(marker),
                        Some(open) if open == marker => None,
                        open => open,
                    };
                }
            }
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                continue;
            }
        }
        if fence.is_none() {
            scan_line(line, &mut out);
        }
    }
    out
}

/// Whether `target` names a place in the knowledge directory (see [`knowledge_links`]).
fn is_knowledge(target: &str) -> bool {
    let path = target.split('#').next().unwrap_or_default();
    let scheme = path.find(':').is_some_and(|i| {
        path[..i]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+.-".contains(&b))
    });
    !scheme && (path.is_empty() || path.ends_with(".json"))
}

fn scan_line(line: &str, out: &mut Vec<RawLink>) {
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'`' => {
                // A code span runs to the next run of as many backticks.
                let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
                let fence = &line[i..i + run];
                i += run;
                match line[i..].find(fence) {
                    Some(end) => i += end + run,
                    None => return,
                }
            }
            b'[' => {
                let image = i > 0 && bytes[i - 1] == b'!';
                match link_at(line, i) {
                    Some((text, target, end)) => {
                        if !image && is_knowledge(&target) {
                            out.push(RawLink { text, target });
                        }
                        i = end;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
}

/// The link whose text starts at the `[` at byte `start`: its text, its
/// target and the byte after its closing `)`.
fn link_at(line: &str, start: usize) -> Option<(String, String, usize)> {
    let bytes = line.as_bytes();
    let mut depth = 0usize;
    let mut i = start;
    let close = loop {
        match bytes.get(i)? {
            b'\\' => i += 1,
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    break i;
                }
            }
            _ => {}
        }
        i += 1;
    };
    if bytes.get(close + 1) != Some(&b'(') {
        return None;
    }
    let mut depth = 0usize;
    let mut j = close + 1;
    let end = loop {
        match bytes.get(j)? {
            b'\\' => j += 1,
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    break j;
                }
            }
            _ => {}
        }
        j += 1;
    };
    let inside = line[close + 2..end].trim();
    let target = match inside.strip_prefix('<') {
        Some(rest) => rest.split('>').next().unwrap_or_default(),
        None => inside.split_whitespace().next().unwrap_or_default(),
    };
    Some((
        line[start + 1..close].to_owned(),
        target.to_owned(),
        end + 1,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_knowledge_links_only() {
        let cases: &[(&str, &[&str])] = &[
            (
                "see [a](../../x/y.json#アンカー) and [b](z.json)",
                &["../../x/y.json#アンカー", "z.json"],
            ),
            ("[same file](#s1) [empty](#)", &["#s1", "#"]),
            (
                "[web](https://e.org/a.json#x) [mail](mailto:a@b) [img](assets/a.png)",
                &[],
            ),
            ("![alt](a.json#x) [t [nested]](a.json#n)", &["a.json#n"]),
            (
                "`[code](a.json#c)` \\[no](a.json#e) [ok](<a b.json#x> \"title\")",
                &["a b.json#x"],
            ),
            (
                "```java\nx[i](a.json#f);\n```\n[after](a.json#g)",
                &["a.json#g"],
            ),
            ("[unclosed](a.json#x", &[]),
            ("[text] (a.json#space)", &[]),
        ];
        for (text, want) in cases {
            let got: Vec<String> = knowledge_links(text)
                .into_iter()
                .map(|l| l.target)
                .collect();
            assert_eq!(got, *want, "{text}");
        }
    }
}
