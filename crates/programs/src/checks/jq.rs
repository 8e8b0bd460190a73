//! The jq and yq expression validators.
//!
//! jq's lexer (1.6 and 1.7) reads `$` and the name after it as two tokens
//! with blanks and comments allowed between them: `$ ENV`, `$<TAB>ENV`,
//! `$ # c<newline>ENV` are all `$ENV`. A name is checked as jq reads it:
//! after `$` (skipping what jq skips), anywhere but right after a `.`
//! (`.env` is a field). jq 1.7.1 continues a comment past a line end after
//! a backslash, 1.6 does not: a comment holding a backslash is refused.
//!
//! mikefarah's yq lexes its expression with ordered regular expressions
//! and no word boundaries: `keysenv(HOME)` is `keys` then `env(HOME)`, and
//! `load` is a token wherever it stands outside a string or a path
//! element. Its file, environment and evaluation operators are refused as
//! substrings of everything that is neither.

/// jq builtins (and keywords) that read the environment, name or read
/// other files, or stop jq with a message.
const JQ_BAD_NAMES: &[&str] = &[
    "env",
    "ENV",
    "input_filename",
    "import",
    "include",
    "modulemeta",
    "get_search_list",
    "get_prog_origin",
    "get_jq_origin",
    "input_line_number",
    "halt_error",
    "getpath_env",
    "__loc__",
    "__prog_name",
];

/// A jq filter that does not read the environment or other files.
pub fn jq(prog: &str) -> Result<(), String> {
    let c: Vec<char> = prog.chars().collect();
    let n = c.len();
    let mut i = 0;
    // Stack of contexts: (in a string, open parentheses of an interpolation).
    let mut stack: Vec<(bool, i32)> = vec![(false, 0)];
    while i < n {
        let Some(&(in_string, _)) = stack.last() else {
            return Err("unbalanced jq interpolation".into());
        };
        let ch = c[i];
        if in_string {
            match ch {
                '\\' if i + 1 < n && c[i + 1] == '(' => {
                    stack.push((false, 1));
                    i += 2;
                }
                '\\' => i += 2,
                '"' => {
                    stack.pop();
                    i += 1;
                }
                _ => i += 1,
            }
            continue;
        }
        match ch {
            '"' => {
                stack.push((true, 0));
                i += 1;
            }
            '#' => i = jq_comment(&c, i)?,
            '(' => {
                if let Some(top) = stack.last_mut() {
                    top.1 += 1;
                }
                i += 1;
            }
            ')' => {
                let close_interp = stack.len() > 1 && stack.last().is_some_and(|t| t.1 == 1);
                if close_interp {
                    stack.pop();
                } else if let Some(top) = stack.last_mut() {
                    top.1 -= 1;
                }
                i += 1;
            }
            '$' => {
                // `$`, then what jq skips between tokens, then the name.
                i += 1;
                loop {
                    match c.get(i) {
                        Some(' ' | '\t' | '\n' | '\r') => i += 1,
                        Some('#') => i = jq_comment(&c, i)?,
                        _ => break,
                    }
                }
                let start = i;
                while i < n && (c[i].is_ascii_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
                let name: String = c[start..i].iter().collect();
                if JQ_BAD_NAMES.contains(&name.as_str()) || name.starts_with("__") {
                    return Err(format!("jq filter uses ${name}"));
                }
            }
            c2 if c2.is_ascii_alphabetic() || c2 == '_' => {
                let start = i;
                while i < n && (c[i].is_ascii_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
                let word: String = c[start..i].iter().collect();
                // `.env` is a field, not the builtin.
                let field = start > 0 && c[start - 1] == '.';
                if !field && JQ_BAD_NAMES.contains(&word.as_str()) {
                    return Err(format!("jq filter uses {word}"));
                }
            }
            _ => i += 1,
        }
    }
    if stack.len() != 1 {
        return Err("unterminated jq string".into());
    }
    Ok(())
}

/// A jq comment at `i` (the `#`): the index of its line end. One holding a
/// backslash is refused: jq 1.7.1 continues it past the line end, 1.6 does
/// not, and the two read what follows differently.
fn jq_comment(c: &[char], mut i: usize) -> Result<usize, String> {
    while i < c.len() && c[i] != '\n' {
        if c[i] == '\\' {
            return Err("a backslash in a jq comment".into());
        }
        i += 1;
    }
    Ok(i)
}

/// Substrings that name a yq operator reading files (`load`, `load_str`,
/// `load_xml`, `load_props`, `load_base64`, `xml_load`, `str_load`), the
/// environment (`env(…)`, `strenv(…)`, `envsubst`), evaluating text
/// (`eval`), running a command (`system`), or naming the input file.
const YQ_BAD_SUBSTRINGS: &[&str] = &[
    "load",
    "env",
    "eval",
    "system",
    "file_name",
    "filename",
    "fileName",
    "file_index",
    "fileIndex",
];

/// Characters that end a yq path element (`.a.b`), as mikefarah's lexer has
/// them.
fn ends_path(c: char) -> bool {
    matches!(
        c,
        ' ' | ';' | '}' | '{' | ':' | '[' | ']' | ',' | '|' | '.' | '(' | ')' | '=' | '\n'
    )
}

/// A yq expression: jq's rules (kislyuk's yq hands it to jq), and none of
/// mikefarah's file loaders, environment readers or evaluators anywhere
/// outside a string constant or a path element.
pub fn yq(prog: &str) -> Result<(), String> {
    jq(prog)?;
    let c: Vec<char> = prog.chars().collect();
    let n = c.len();
    let mut i = 0;
    let mut code = String::new();
    let check = |code: &mut String| -> Result<(), String> {
        if let Some(bad) = YQ_BAD_SUBSTRINGS.iter().find(|b| code.contains(**b)) {
            return Err(format!("yq expression uses {bad}"));
        }
        code.clear();
        Ok(())
    };
    while i < n {
        let ch = c[i];
        let next = c.get(i + 1).copied();
        if ch == '"' {
            // A string constant: `"([^"\\]|\\.)*"`.
            check(&mut code)?;
            i += 1;
            loop {
                match c.get(i) {
                    None => return Err("unterminated yq string".into()),
                    Some('"') => break,
                    Some('\\') => i += 2,
                    Some(_) => i += 1,
                }
            }
            i += 1;
        } else if ch == '.' && next == Some('.') {
            // `..` and `...`: recursive descent; what follows is code.
            i += 2;
            if c.get(i) == Some(&'.') {
                i += 1;
            }
            code.push(' ');
        } else if ch == '.' && next == Some('[') {
            i += 2;
            code.push(' ');
        } else if ch == '.' && next.is_some_and(|d| !ends_path(d)) {
            // A path element: `."key"` (no blank inside) or `.key`.
            check(&mut code)?;
            let wrapped = next == Some('"') && {
                let mut j = i + 2;
                while j < n && c[j] != '"' && c[j] != ' ' {
                    j += 1;
                }
                if j < n && c[j] == '"' && j > i + 2 {
                    i = j + 1;
                    true
                } else {
                    false
                }
            };
            if !wrapped {
                i += 1;
                while i < n && !ends_path(c[i]) {
                    i += 1;
                }
            }
        } else if ch.is_ascii_digit() || (ch == '-' && next.is_some_and(|d| d.is_ascii_digit())) {
            // A number: its `.` is no path element (`1.5load` is `1.5`
            // and `load`).
            i += 1;
            while i < n && (c[i].is_ascii_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            if i + 1 < n && c[i] == '.' && c[i + 1].is_ascii_digit() {
                i += 1;
                while i < n && c[i].is_ascii_digit() {
                    i += 1;
                }
            }
            code.push(' ');
        } else {
            code.push(ch);
            i += 1;
        }
    }
    check(&mut code)
}

#[cfg(test)]
mod tests {
    use super::{jq, yq};

    #[test]
    fn jq_filters() {
        for ok in [
            ".",
            ".a.b",
            ".[] | select(.x > 1)",
            "\"\\(.a) x\"",
            "keys",
            "map(.name)",
            ".environment",
            ".env",
            ".a.env",
            ".items[] | select(.env == \"prod\") | .name",
            ". as $x | $x.a",
            "$x",
            ". as $ENVIRONMENT | 1",
            "# a comment\n.a",
            "\"$ENV\"",
        ] {
            assert!(jq(ok).is_ok(), "{ok:?}: {:?}", jq(ok));
        }
        for bad in [
            "env",
            "$ENV.HOME",
            "\"\\(env.HOME)\"",
            "import \"x\" as y; .",
            "input_filename",
            "\"a\\(\"b\\(env)\")\"",
            // rt12 F4: `$` and the name are two tokens.
            "$ ENV",
            "$ ENV.GITHUB_TOKEN",
            "$\tENV.GITHUB_TOKEN",
            "$\nENV",
            "$ # c\n ENV",
            "{$ ENV}",
            "$__loc__",
            "$ __loc__",
            "$__prog_name",
            "ENV",
            "get_prog_origin",
            "reduce env as $e (0; $e)",
            // jq 1.7.1 continues this comment, 1.6 does not.
            ". # c \\\n\"\n| $ENV # \"",
        ] {
            assert!(jq(bad).is_err(), "{bad:?} should fail");
        }
    }

    #[test]
    fn yq_expressions() {
        for ok in [
            ".a",
            ".services.web.environment",
            ".env",
            ".a.env.b",
            ".\"env\"",
            ".[0].name",
            "..",
            ". as $i ireduce ({}; . * $i)",
            ".a == \"x\"",
            ".a | keys",
            "1.5",
        ] {
            assert!(yq(ok).is_ok(), "{ok:?}: {:?}", yq(ok));
        }
        for bad in [
            "load(\"/etc/passwd\")",
            "load_str(\"/etc/passwd\")",
            "str_load(\"f\")",
            "xml_load(\"f\")",
            "load_base64(\"f\")",
            "env(HOME)",
            "strenv(HOME)",
            ".a | envsubst",
            "eval(\".a\")",
            "system(\"id\")",
            "filename",
            "$ ENV",
            // No word boundaries in mikefarah's lexer.
            "keysenv(HOME)",
            "keysload(\"f\")",
            ".a | 1.5load(\"f\")",
            "..env(HOME)",
            "..load(\"f\")",
            ".[load(\"f\")]",
            "{\"a\": load(\"f\")}",
            "with(.a; . = load(\"f\"))",
        ] {
            assert!(yq(bad).is_err(), "{bad:?} should fail");
        }
    }
}
