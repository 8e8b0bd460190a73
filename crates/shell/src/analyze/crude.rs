//! Text that did not parse: the walk records it as complex and still
//! scans it crudely for commands, so hard deny sees what it can.

use super::unwrap::unwrap_plain;
use super::walk::Walker;
use super::Invocation;
use crate::parse::ParseFailure;
use crate::paths::basename;
use crate::verbs::{is_interpreter, is_shell, DOWNLOADERS};
use crate::word::Word;

impl Walker<'_> {
    /// Text that could not be parsed: complex, plus a conservative token
    /// scan so hard deny still sees what it can.
    pub(super) fn failed(&mut self, text: &str, e: &ParseFailure, cwd: Option<&str>) {
        match e {
            ParseFailure::TooDeep => self.reason("nesting_too_deep"),
            ParseFailure::Syntax(_) => self.reason("parse_error"),
        }
        self.crude_scan(text, cwd);
    }

    pub(super) fn crude_scan(&mut self, text: &str, cwd: Option<&str>) {
        if fork_bomb_shape(text) {
            self.out.fork_bomb = true;
        }
        let mut segment_starts_pipe = false;
        let mut prev_downloader = false;
        for (kind, seg) in crude_segments(text) {
            let words: Vec<Word> = seg
                .split_whitespace()
                .map(|t| {
                    let cleaned: String = t
                        .chars()
                        .filter(|c| !matches!(c, '\'' | '"' | '\\'))
                        .collect();
                    // The home stays the home (rt28a: `echo $[1]; rm -rf
                    // ~` did not parse, and the scan read a name `~`).
                    match cleaned.strip_prefix('~') {
                        Some("") => Word::analyze("~", 0),
                        Some(rest) if rest.starts_with('/') => {
                            Word::analyze(&format!("~/{}", shell_quote(&rest[1..])), 0)
                        }
                        _ => Word::analyze(&shell_quote(&cleaned), 0),
                    }
                })
                .collect();
            // Reserved words that start a list (`for ((;;)); do rm -rf ~`,
            // rt28a): the command follows them.
            let skip = words
                .iter()
                .take_while(|w| {
                    matches!(
                        w.literal().as_deref(),
                        Some(
                            "do" | "then"
                                | "else"
                                | "elif"
                                | "if"
                                | "while"
                                | "until"
                                | "!"
                                | "time"
                        )
                    )
                })
                .count();
            let words: Vec<Word> = words.into_iter().skip(skip).collect();
            if words.is_empty() {
                continue;
            }
            let inv = Invocation {
                start: usize::MAX,
                argv: words,
                env: Vec::new(),
                redirects: Vec::new(),
                cwd: cwd.map(str::to_string),
                wrappers: Vec::new(),
                gated: false,
                piped_or_async: false,
                crude: true,
                reading: None,
                uncovered: Vec::new(),
                in_substitution: false,
                assigns: Vec::new(),
                alt_cwd: None,
            };
            let (unwrapped, _) = unwrap_plain(&inv.argv);
            let base = unwrapped
                .first()
                .and_then(Word::literal)
                .map(|p| basename(&p).to_ascii_lowercase())
                .unwrap_or_default();
            if segment_starts_pipe && prev_downloader && (is_shell(&base) || is_interpreter(&base))
            {
                self.out.remote_code = true;
            }
            if DOWNLOADERS.contains(&base.as_str()) {
                prev_downloader = true;
            } else if kind != '|' {
                prev_downloader = false;
            }
            segment_starts_pipe = true;
            let mut inv = inv;
            inv.reading = super::Reading::of(&unwrapped, &self.env.home);
            inv.argv = unwrapped;
            self.out.invocations.push(inv);
        }
    }
}

/// Quote a token for re-analysis as a literal word.
pub(super) fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', ""))
}

/// Words as one command line, each quoted as a literal word.
pub(super) fn shell_line<S: AsRef<str>>(words: &[S]) -> String {
    words
        .iter()
        .map(|w| shell_quote(w.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Split unparseable text into pseudo-commands at shell operators; the kind
/// is the operator that preceded the segment.
pub(super) fn crude_segments(text: &str) -> Vec<(char, String)> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut kind = ';';
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        // `$HOME` and `${HOME}` are the home (`~`) for the scan.
        if c == '$' {
            let rest = &text[at + 1..];
            let name = if rest.starts_with("{HOME}") {
                Some(6)
            } else if rest.starts_with("HOME")
                && !rest[4..].starts_with(|x: char| x.is_ascii_alphanumeric() || x == '_')
            {
                Some(4)
            } else {
                None
            };
            if let Some(n) = name {
                if cur.ends_with(|x: char| x.is_whitespace()) || cur.is_empty() {
                    cur.push('~');
                } else {
                    cur.push_str(" ~");
                }
                for _ in 0..n {
                    chars.next();
                }
                continue;
            }
        }
        match c {
            ';' | '\n' | '&' | '(' | ')' | '`' | '{' | '}' | '\r' => {
                out.push((kind, std::mem::take(&mut cur)));
                kind = ';';
            }
            '|' => {
                out.push((kind, std::mem::take(&mut cur)));
                kind = '|';
            }
            '$' => cur.push(' '),
            _ => cur.push(c),
        }
    }
    out.push((kind, cur));
    out.retain(|(_, s)| !s.trim().is_empty());
    out
}

/// The fork bomb's shape in text the parser refused (`:(){:|:&};:`, which
/// bash itself rejects but other gates' suites list verbatim): `NAME()`
/// whose body pipes NAME into NAME in the background, then NAME. Spaces are
/// ignored.
fn fork_bomb_shape(text: &str) -> bool {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = t.find("(){") else {
        return false;
    };
    let name = &t[..open];
    let name = name.rsplit([';', '&', '|', '\n']).next().unwrap_or(name);
    if name.is_empty() || name.len() > 64 {
        return false;
    }
    let body = &t[open + 3..];
    body.starts_with(&format!("{name}|{name}&")) && body.contains(&format!("}};{name}"))
}

#[cfg(test)]
mod fork_bomb_tests {
    use super::fork_bomb_shape;

    #[test]
    fn shapes() {
        assert!(fork_bomb_shape(":(){:|:&};:"));
        assert!(fork_bomb_shape("bomb(){ bomb|bomb& };bomb"));
        assert!(!fork_bomb_shape("f(){ ls; };f"));
        assert!(!fork_bomb_shape("f(){ f|g& };f"));
    }
}
