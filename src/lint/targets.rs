//! `link-target-mismatch`: a link whose text names another section of the
//! target file clearly better than the section it leads to.
//!
//! Converters write anchors from labels (`#s8`, a heading slug), and a label
//! that moved or a section that was split sends the link to a neighbour of
//! the section its text names. `search --expand` and `read --links` follow
//! the anchor, so the judge is handed the neighbour. The link text is the
//! author's statement of where the link should go; this rule scores every
//! section of the target file against it and reports a link when another
//! section matches it clearly better than its own.
//!
//! A section's score is the share of the link text's words found in its
//! title (1 each) and its text (0.5 each), 0 to 1.5. Tuned on the nabledge
//! corpora (docs/lint.md): a link is reported when another section scores
//! at least [`MARGIN`] more, its title holds more of the words than the
//! linked section's title, and the linked section's text does not hold
//! every word. The last two keep links to where a term is explained
//! (`フレームワーク制御ヘッダ` to the section on the message data model, which
//! defines it, rather than to `フレームワーク制御ヘッダの読み書きを変更する`)
//! and links whose own heading already says it all (`疎通確認`).

use super::words::{FileWords, SectionWords, distinct};
use crate::error::Result;

/// A link text needs at least this many words (besides those of the target
/// file's title): one word ("設定", "Usage") names too little to prefer one
/// section over another.
pub(crate) const MIN_WORDS: usize = 2;

/// How much higher another section must score.
pub(crate) const MARGIN: f64 = 0.5;

/// How well `section` matches `words` (the link text's words): each word
/// found in its title counts 1 and in its text 0.5, divided by the number of
/// words (so 0 to 1.5). The title weighs more because a heading names what a
/// section is about, while a word in the text may be a passing mention.
pub(crate) fn score(words: &[String], section: &SectionWords) -> f64 {
    if words.is_empty() {
        return 0.0;
    }
    let mut sum = 0.0;
    for w in words {
        if section.title_has(w) {
            sum += 1.0;
        }
        if section.text_has(w) {
            sum += 0.5;
        }
    }
    sum / words.len() as f64
}

/// Whether a link text is a label rather than words: one run of ASCII
/// letters, digits and `_-.:` with a `_` or `-` in it (`bean_util`,
/// `tag-form_tag`), a reStructuredText label the converter kept. It names
/// the target by the converter's id, which need not be in any heading.
fn is_label(text: &str) -> bool {
    let text = text.trim();
    text.contains(['_', '-'])
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-.:".contains(&b))
}

/// The `link-target-mismatch` evidence for a link with text `text` that
/// leads to section `linked` of the file whose words are `file`, from the
/// section `from` of that same file when the link stays in it (a section is
/// never the better target of its own link). `None` when the link is fine,
/// or its text too short to tell.
pub(crate) fn check(
    text: &str,
    linked: &str,
    file: &FileWords,
    from: Option<&str>,
) -> Result<Option<String>> {
    if is_label(text) {
        return Ok(None);
    }
    // Words of the target file's title name the file, which every section
    // of it shares ("Bean Validationの相関バリデーション" into Bean
    // Validation's file): only the other words can tell its sections apart.
    let words: Vec<String> = distinct(text)?
        .into_iter()
        .filter(|w| !file.title_words.contains(w))
        .collect();
    if words.len() < MIN_WORDS {
        return Ok(None);
    }
    let sections = &file.sections;
    let Some(own) = sections.iter().find(|s| s.id == linked) else {
        return Ok(None);
    };
    if words.iter().all(|w| own.text_has(w)) {
        return Ok(None);
    }
    let own_score = score(&words, own);
    // The best other section; on a tie, the first in the file.
    let mut best: Option<(&SectionWords, f64)> = None;
    for s in sections
        .iter()
        .filter(|s| s.id != linked && Some(s.id.as_str()) != from)
    {
        let sc = score(&words, s);
        if best.is_none_or(|(_, b)| sc > b) {
            best = Some((s, sc));
        }
    }
    let Some((better, better_score)) = best else {
        return Ok(None);
    };
    let in_title = |s: &SectionWords| words.iter().filter(|w| s.title_has(w)).count();
    if better_score < own_score + MARGIN || in_title(better) <= in_title(own) {
        return Ok(None);
    }
    let title = |s: &SectionWords| s.title.clone().unwrap_or_else(|| "page text".to_owned());
    Ok(Some(format!(
        "link text {text:?} leads to {} {:?} (score {own_score:.2}), but {} {:?} scores {better_score:.2}",
        own.id,
        title(own),
        better.id,
        title(better)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::words::Words;

    #[test]
    fn mismatches() -> Result<()> {
        let doc = serde_json::json!({"title": "Bean Validation", "sections": [
            {"id": "s1", "title": "相関バリデーションを行う", "content": "フィールド間の相関バリデーションはメソッドで実装する。"},
            {"id": "s2", "title": "データベースとの相関バリデーションを行う", "content": "データベースとの相関バリデーションは業務アクションで行う。"},
            {"id": "s3", "title": "送受信電文のデータモデル", "content": "フレームワーク制御ヘッダはリクエストIDなどを持つ。"},
            {"id": "s4", "title": "フレームワーク制御ヘッダの読み書きを変更する", "content": "変更できる。"}]});
        let mut words = Words::default();
        let file = words.of("b.json", &doc)?;
        let cases: &[(&str, &str, Option<&str>, Option<&str>)] = &[
            // The link text names s2; s1 only shares part of it.
            (
                "Bean Validationのデータベースとの相関バリデーション",
                "s1",
                None,
                Some("s2"),
            ),
            // Right target.
            ("データベースとの相関バリデーション", "s2", None, None),
            // s3 explains the term in its text: a link to it is sound.
            ("フレームワーク制御ヘッダ", "s3", None, None),
            // One word besides the file's title: too little to tell.
            ("Bean Validationの相関", "s2", None, None),
            // A label, not words.
            ("bean_validation-correlation", "s1", None, None),
            // The better section is the one the link is in.
            ("データベースとの相関バリデーション", "s1", Some("s2"), None),
        ];
        for (text, linked, from, want) in cases {
            let got = check(text, linked, file, *from)?;
            let better = got
                .as_deref()
                .and_then(|e| e.split(", but ").nth(1))
                .and_then(|e| e.split(' ').next());
            assert_eq!(better, *want, "{text:?} → {linked}: {got:?}");
        }
        Ok(())
    }
}
