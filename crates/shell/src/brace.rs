//! Bash brace expansion of words whose text needs nothing else (no quote,
//! escape, parameter, substitution or tilde): `src/{main,lib}.rs` is the two
//! words `src/main.rs src/lib.rs`, `f{1..3}` is `f1 f2 f3`. The result is
//! exactly what bash passes, so the words can be judged like written ones.
//! Whatever this reader is not sure bash would expand the same way returns
//! `None` (the word stays dynamic, as before).

/// Most words one brace word may expand to.
const MOST: usize = 256;

/// The words bash makes of `text` by brace expansion (`None`: the text is
/// outside the subset read here, or would expand to too many words).
pub fn expand(text: &str) -> Option<Vec<String>> {
    // Only plain characters, braces, commas and the glob characters (which
    // globbing, after brace expansion, treats as it would in a written
    // word).
    if !text.chars().all(|c| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                '.' | '_' | '/' | '+' | ',' | '%' | '@' | '-' | '=' | ':' | '{' | '}' | '*' | '?'
            )
    }) {
        return None;
    }
    let mut out = Vec::new();
    expand_into(text, &mut out)?;
    Some(out)
}

fn expand_into(text: &str, out: &mut Vec<String>) -> Option<()> {
    match first_brace(text)? {
        None => {
            out.push(text.to_string());
            (out.len() <= MOST).then_some(())
        }
        Some((open, close, parts)) => {
            let (pre, post) = (&text[..open], &text[close + 1..]);
            for p in parts {
                expand_into(&format!("{pre}{p}{post}"), out)?;
            }
            Some(())
        }
    }
}

/// The first brace pair bash expands in `text`: its position and the
/// alternatives it stands for (`Ok(None)` when there is none). `None`: a
/// shape this reader does not decide.
#[allow(clippy::type_complexity)]
fn first_brace(text: &str) -> Option<Option<(usize, usize, Vec<String>)>> {
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(rel) = text[from..].find('{') {
        let open = from + rel;
        // The matching close brace, and the top-level commas.
        let mut depth = 0usize;
        let mut commas = Vec::new();
        let mut close = None;
        for (i, &c) in b.iter().enumerate().skip(open) {
            match c {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(i);
                        break;
                    }
                }
                b',' if depth == 1 => commas.push(i),
                _ => {}
            }
        }
        let Some(close) = close else {
            // An unmatched brace: bash leaves it, and whatever follows is
            // not decided here.
            return if text[open + 1..].contains('}') {
                None
            } else {
                Some(None)
            };
        };
        let inner = &text[open + 1..close];
        if !commas.is_empty() {
            let mut parts = Vec::new();
            let mut start = open + 1;
            for c in commas.iter().copied().chain(std::iter::once(close)) {
                parts.push(text[start..c].to_string());
                start = c + 1;
            }
            return Some(Some((open, close, parts)));
        }
        if inner.contains("..") {
            return sequence(inner).map(|parts| Some((open, close, parts)));
        }
        if inner.contains(['{', '}']) {
            // `{a{b,c}}`: the inner pair expands with the outer braces
            // kept as text; not decided here.
            return None;
        }
        // `{}`, `{a}`: text.
        from = open + 1;
    }
    Some(None)
}

/// `x..y[..step]` of integers or single letters (`None`: anything else,
/// which bash would leave as text or read otherwise).
fn sequence(inner: &str) -> Option<Vec<String>> {
    let parts: Vec<&str> = inner.split("..").collect();
    let (a, b, step) = match parts.as_slice() {
        [a, b] => (*a, *b, None),
        [a, b, s] => (*a, *b, Some(*s)),
        _ => return None,
    };
    let step: i64 = match step {
        Some(s) => s.parse::<i64>().ok()?.checked_abs()?.max(1),
        None => 1,
    };
    let int = |s: &str| -> Option<i64> {
        let digits = s.strip_prefix('-').unwrap_or(s);
        if digits.is_empty() || digits.len() > 9 || !digits.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    let mut out = Vec::new();
    if let (Some(x), Some(y)) = (int(a), int(b)) {
        // Zero padding when either end is written with a leading zero.
        let padded = |s: &str| {
            s.trim_start_matches('-').len() > 1 && s.trim_start_matches('-').starts_with('0')
        };
        let width = if padded(a) || padded(b) {
            a.len().max(b.len())
        } else {
            0
        };
        let mut v = x;
        loop {
            out.push(if width > 0 {
                if v < 0 {
                    format!("-{:0w$}", -v, w = width - 1)
                } else {
                    format!("{v:0width$}")
                }
            } else {
                v.to_string()
            });
            if out.len() > MOST {
                return None;
            }
            if v == y {
                break;
            }
            let next = if x <= y { v + step } else { v - step };
            if (x <= y && next > y) || (x > y && next < y) {
                break;
            }
            v = next;
        }
        return Some(out);
    }
    let letter = |s: &str| -> Option<u8> {
        match s.as_bytes() {
            [c] if c.is_ascii_alphabetic() => Some(*c),
            _ => None,
        }
    };
    let (x, y) = (letter(a)?, letter(b)?);
    // Between a lower- and an upper-case letter bash walks the ASCII range,
    // punctuation included: not read here.
    if x.is_ascii_lowercase() != y.is_ascii_lowercase() {
        return None;
    }
    let step = u8::try_from(step).ok()?;
    let mut v = x;
    loop {
        out.push((v as char).to_string());
        if v == y {
            break;
        }
        let next = if x <= y {
            v.checked_add(step)?
        } else {
            v.checked_sub(step)?
        };
        if (x <= y && next > y) || (x > y && next < y) {
            break;
        }
        v = next;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::expand;
    use proptest::prelude::*;

    proptest! {
        /// Any text of the characters that matter never panics and never
        /// expands past the bound.
        #[test]
        fn never_panics(text in "[{},.a-c0-9*%-]{0,24}") {
            if let Some(words) = expand(&text) {
                prop_assert!(words.len() <= super::MOST);
            }
        }
    }

    fn e(t: &str) -> Option<Vec<String>> {
        expand(t)
    }

    fn v(words: &[&str]) -> Option<Vec<String>> {
        Some(words.iter().map(|s| s.to_string()).collect())
    }

    /// Each expectation was checked with bash 5.2 (`printf '%s\n' WORD`).
    #[test]
    fn as_bash_expands() {
        assert_eq!(e("src/{main,lib}.rs"), v(&["src/main.rs", "src/lib.rs"]));
        assert_eq!(
            e("{README,CHANGELOG}.md"),
            v(&["README.md", "CHANGELOG.md"])
        );
        assert_eq!(e("a{,b}"), v(&["a", "ab"]));
        assert_eq!(e("{a,b}{c,d}"), v(&["ac", "ad", "bc", "bd"]));
        assert_eq!(e("{a,{b,c}}x"), v(&["ax", "bx", "cx"]));
        assert_eq!(e("f{1..3}"), v(&["f1", "f2", "f3"]));
        assert_eq!(e("{3..1}"), v(&["3", "2", "1"]));
        assert_eq!(e("{01..03}"), v(&["01", "02", "03"]));
        assert_eq!(e("{1..7..3}"), v(&["1", "4", "7"]));
        assert_eq!(e("{a..c}"), v(&["a", "b", "c"]));
        assert_eq!(
            e("--exclude-dir={node_modules,target}"),
            v(&["--exclude-dir=node_modules", "--exclude-dir=target"])
        );
        assert_eq!(e("data/*.{csv,tsv}"), v(&["data/*.csv", "data/*.tsv"]));
        assert_eq!(e("{-rf,x}"), v(&["-rf", "x"]));
        assert_eq!(e("{}"), v(&["{}"]));
        assert_eq!(e("{a}"), v(&["{a}"]));
        assert_eq!(e("{a}{b,c}"), v(&["{a}b", "{a}c"]));
        assert_eq!(e("{-3..2}"), v(&["-3", "-2", "-1", "0", "1", "2"]));
        assert_eq!(
            e("{-03..2}"),
            v(&["-03", "-02", "-01", "000", "001", "002"])
        );
        assert_eq!(e("{1..10..-3}"), v(&["1", "4", "7", "10"]));
        assert_eq!(
            e("{z..a..2}"),
            v(&["z", "x", "v", "t", "r", "p", "n", "l", "j", "h", "f", "d", "b"])
        );
        assert_eq!(e("{1..3}{a,b}"), v(&["1a", "1b", "2a", "2b", "3a", "3b"]));
        assert_eq!(e("{a,b}*"), v(&["a*", "b*"]));
    }

    #[test]
    fn what_is_not_read_is_none() {
        assert_eq!(e("{a..Z}"), None);
        assert_eq!(e("'{a,b}'"), None);
        assert_eq!(e("{$x,b}"), None);
        assert_eq!(e("~/{a,b}"), None);
        assert_eq!(e("{a{b,c}}"), None);
        assert_eq!(e("{1..100000}"), None);
        assert_eq!(e("{a,b"), v(&["{a,b"]));
        // fuzzer finding: a sequence with an empty end (bash leaves it as
        // text; here it is not read, and must not panic)
        assert_eq!(e("{..%0}"), None);
        assert_eq!(e("{..a}"), None);
        assert_eq!(e("{a..}"), None);
    }
}
