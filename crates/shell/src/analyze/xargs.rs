//! The command lines `xargs` builds from literal input (SPEC §8.1a,
//! §15.19): `echo src/a.rs src/b.rs | xargs wc -l` runs `wc -l src/a.rs
//! src/b.rs`, which is then judged like a written command — safe, granted,
//! hard-denied — instead of making the call complex.
//!
//! Only what GNU xargs is known to do exactly is read: its input must be
//! text whose splitting needs no quote or backslash processing, and its
//! options a short allow-list. Anything else returns `None` and the call
//! stays complex (`indirect_execution`), as before.

use crate::paths::basename;
use crate::syntax::{Command, RedirKind, RedirTarget, Redirect};
use crate::word::Word;

/// Most command lines built from one input (`-n 1` over many words); more
/// and the call stays complex.
const MAX_LINES: usize = 64;

/// The text a literal `echo` or `printf` writes to standard output, as
/// bash's builtins write it (`None`: not literal, or not known exactly).
/// `~` and `$HOME` are expanded like operands are.
pub(super) fn literal_stdout(cmd: &Command, home: &str) -> Option<String> {
    let Command::Simple(s) = cmd else {
        return None;
    };
    if !s.assignments.is_empty() || s.redirects.iter().any(|r| r.kind != RedirKind::Dup) {
        return None;
    }
    let words: Option<Vec<String>> = s
        .words
        .iter()
        .map(|w| {
            if w.glob || !w.substs.is_empty() {
                None
            } else {
                w.expanded(home)
            }
        })
        .collect();
    let words = words?;
    let (prog, args) = words.split_first()?;
    // Backslashes in what is printed: dash's echo (`sh -c`) and bash with
    // `xpg_echo` read escapes even without `-e` (rt12 F4); none are read
    // here (printf's format below reads only its own `\n`).
    let printed = if prog == "printf" {
        &args[1.min(args.len())..]
    } else {
        args
    };
    if printed.iter().any(|w| w.contains('\\')) {
        return None;
    }
    match prog.as_str() {
        "echo" => {
            let mut newline = true;
            let mut k = 0;
            while let Some(a) = args.get(k) {
                let flags = a
                    .strip_prefix('-')
                    .filter(|f| !f.is_empty() && f.chars().all(|c| matches!(c, 'n' | 'e' | 'E')));
                let Some(flags) = flags else { break };
                // dash's echo (`sh -c`) prints `-e` and `-E` as words;
                // bash's takes them as options: not read here.
                if flags.contains(['e', 'E']) {
                    return None;
                }
                newline = false;
                k += 1;
            }
            let text = args[k..].join(" ");
            Some(if newline { text + "\n" } else { text })
        }
        "printf" => {
            let (fmt, rest) = args.split_first()?;
            match fmt.as_str() {
                "%s\\n" => Some(rest.iter().map(|a| format!("{a}\n")).collect()),
                "%s " => Some(rest.iter().map(|a| format!("{a} ")).collect()),
                // A format with nothing to convert, given no arguments:
                // only `\n` escapes (other escapes and `%` are not read).
                f if rest.is_empty() && !f.contains('%') => {
                    let plain = f.replace("\\n", "\n");
                    (!plain.contains('\\')).then_some(plain)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// What `xargs` reads when the command's own redirects decide it: the last
/// redirect of standard input, a literal here-string (`Some(Some(text))`),
/// anything else (`Some(None)`: unknown), or none (`None`: the pipe).
pub(super) fn redirected_input(redirects: &[Redirect]) -> Option<Option<String>> {
    let mut out = None;
    for r in redirects {
        let fd: String = r.op.chars().take_while(char::is_ascii_digit).collect();
        let reads = matches!(
            r.kind,
            RedirKind::Read | RedirKind::ReadWrite | RedirKind::HereDoc | RedirKind::HereString
        ) || (r.kind == RedirKind::Dup && r.op[fd.len()..].starts_with('<'));
        // Whatever names descriptor 0 itself (`0>&3`, `0>f`) points
        // standard input elsewhere (rt12 F3).
        let names_stdin = fd.trim_start_matches('0').is_empty() && !fd.is_empty();
        if !(names_stdin || reads && fd.is_empty()) {
            continue;
        }
        out = Some(match &r.target {
            RedirTarget::HereString(w) if !w.glob && w.substs.is_empty() => {
                w.literal().map(|t| t + "\n")
            }
            _ => None,
        });
    }
    out
}

/// The command lines `argv` (an `xargs` invocation) runs given `input`, in
/// order (`None`: not known exactly).
pub(super) fn lines(argv: &[Word], input: &str) -> Option<Vec<Vec<Word>>> {
    let (prog, _) = argv.split_first()?;
    if basename(&prog.literal()?) != "xargs" {
        return None;
    }
    let mut max_args: Option<usize> = None;
    let mut replace: Option<String> = None;
    let mut null = false;
    let mut no_run_if_empty = false;
    let number = |v: &str| -> Option<usize> {
        let n: usize = v.parse().ok()?;
        (n > 0).then_some(n)
    };
    let mut i = 1;
    while let Some(w) = argv.get(i) {
        let v = w.literal()?;
        if !v.starts_with('-') || v == "-" {
            break;
        }
        i += 1;
        if v == "--" {
            break;
        }
        let next = |i: &mut usize| -> Option<String> {
            let v = argv.get(*i)?.literal()?;
            *i += 1;
            Some(v)
        };
        match v.as_str() {
            "-r" | "--no-run-if-empty" => no_run_if_empty = true,
            "-t" | "--verbose" | "-x" | "--exit" => {}
            "-0" | "--null" => null = true,
            "-n" | "--max-args" => max_args = Some(number(&next(&mut i)?)?),
            "-P" | "--max-procs" => {
                next(&mut i)?.parse::<usize>().ok()?;
            }
            "-I" => replace = Some(next(&mut i)?),
            "-i" | "--replace" => replace = Some("{}".into()),
            _ => {
                if let Some(n) = v.strip_prefix("--max-args=").or(v.strip_prefix("-n")) {
                    max_args = Some(number(n)?);
                } else if let Some(n) = v.strip_prefix("--max-procs=").or(v.strip_prefix("-P")) {
                    n.parse::<usize>().ok()?;
                } else if let Some(r) = v.strip_prefix("--replace=").or(v.strip_prefix("-I")) {
                    replace = Some(r.to_string());
                } else if let Some(r) = v.strip_prefix("-i") {
                    replace = Some(r.to_string());
                } else {
                    return None;
                }
            }
        }
    }
    // GNU xargs takes -I and -n as exclusive, the later one winning
    // (`-I R -n2` appends the items and leaves R as text, rt12 F1): the
    // two together are not read here.
    if replace.is_some() && max_args.is_some() {
        return None;
    }
    let inner: Vec<Word> = if i < argv.len() {
        argv[i..].to_vec()
    } else {
        vec![Word::static_text("echo", prog.start, false)]
    };
    if inner.iter().any(|w| !w.substs.is_empty() || w.proc_subst) {
        return None;
    }
    // Without -0, xargs gives quotes and backslashes in its input a meaning
    // of its own; such input is not read here. Nor is any character but
    // printable ASCII, space, tab and newline: xargs trims and splits by
    // its own idea of blanks (`\v`, `\f`, `\r` lead an `-I` item, rt12 F2).
    if !null && input.contains(['\'', '"', '\\']) {
        return None;
    }
    if !input
        .bytes()
        .all(|b| b == b' ' || b == b'\t' || b == b'\n' || (0x21..0x7f).contains(&b))
    {
        return None;
    }
    let items: Vec<&str> = if null {
        input.split('\0').filter(|t| !t.is_empty()).collect()
    } else if replace.is_some() {
        input
            .split('\n')
            .map(|l| l.trim_start_matches([' ', '\t']))
            .filter(|l| !l.is_empty())
            .collect()
    } else {
        input.split_whitespace().collect()
    };
    let mut out: Vec<Vec<Word>> = Vec::new();
    if let Some(r) = &replace {
        if r.is_empty() {
            return None;
        }
        for item in &items {
            let mut line = Vec::with_capacity(inner.len());
            for w in &inner {
                match w.literal() {
                    Some(v) if v.contains(r.as_str()) => {
                        line.push(Word::static_text(
                            &v.replace(r.as_str(), item),
                            w.start,
                            false,
                        ));
                    }
                    Some(_) => line.push(w.clone()),
                    // A word known only at run time might hold the string.
                    None if w.raw.contains(r.as_str()) => return None,
                    None => line.push(w.clone()),
                }
            }
            out.push(line);
        }
    } else if items.is_empty() {
        if !no_run_if_empty {
            out.push(inner.clone());
        }
    } else {
        for chunk in items.chunks(max_args.unwrap_or(usize::MAX)) {
            let mut line = inner.clone();
            line.extend(
                chunk
                    .iter()
                    .map(|t| Word::static_text(t, prog.start, false)),
            );
            out.push(line);
        }
    }
    (out.len() <= MAX_LINES).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &[&str]) -> Vec<Word> {
        text.iter()
            .map(|t| Word::static_text(t, 0, false))
            .collect()
    }

    fn built(argv: &[&str], input: &str) -> Option<Vec<String>> {
        lines(&words(argv), input).map(|ls| {
            ls.iter()
                .map(|l| {
                    l.iter()
                        .map(|w| w.literal().unwrap_or_default())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect()
        })
    }

    #[test]
    fn appends_items_split_on_blanks() {
        assert_eq!(
            built(&["xargs", "wc", "-l"], "a b\nc\n"),
            Some(vec!["wc -l a b c".to_string()])
        );
        assert_eq!(
            built(&["xargs", "-n1", "cat"], "a b\n"),
            Some(vec!["cat a".to_string(), "cat b".to_string()])
        );
        assert_eq!(built(&["xargs"], "a\n"), Some(vec!["echo a".to_string()]));
        assert_eq!(built(&["xargs", "-r", "cat"], "\n"), Some(vec![]));
        assert_eq!(
            built(&["xargs", "cat"], "\n"),
            Some(vec!["cat".to_string()])
        );
    }

    #[test]
    fn replaces_per_line() {
        assert_eq!(
            built(&["xargs", "-I{}", "sh", "-c", "rm -rf {}"], "/\n"),
            Some(vec!["sh -c rm -rf /".to_string()])
        );
        assert_eq!(
            built(&["xargs", "--replace=F", "cp", "F", "F.bak"], "a b\nc\n"),
            Some(vec!["cp a b a b.bak".to_string(), "cp c c.bak".to_string()])
        );
    }

    #[test]
    fn null_input_is_one_item() {
        assert_eq!(
            built(&["xargs", "-0", "bash", "-c"], "rm -rf /\n"),
            Some(vec!["bash -c rm -rf /\n".to_string()])
        );
    }

    #[test]
    fn what_is_not_known_exactly_is_none() {
        assert_eq!(built(&["xargs", "cat"], "'a b'\n"), None);
        assert_eq!(built(&["xargs", "cat"], "a\\ b\n"), None);
        assert_eq!(built(&["xargs", "-a", "list", "cat"], "x\n"), None);
        assert_eq!(built(&["xargs", "-d", ",", "cat"], "x\n"), None);
        assert_eq!(built(&["xargs", "-L1", "cat"], "x\n"), None);
        assert_eq!(built(&["xargs", "--no-run", "cat"], "x\n"), None);
        assert_eq!(built(&["xargs", "-p", "cat"], "x\n"), None);
        assert_eq!(built(&["xargs", "-n0", "cat"], "x\n"), None);
        // rt12 F1: -I and -n exclude each other, the later one winning
        assert_eq!(built(&["xargs", "-I", "R", "-n2", "cat", "R"], "x\n"), None);
        assert_eq!(built(&["xargs", "-n2", "-iR", "cat", "R"], "x\n"), None);
        // rt12 F2: xargs's own blanks (\v, \f, \r lead an -I item)
        assert_eq!(
            built(&["xargs", "-I{}", "cat", "{}"], "\u{b}/etc/passwd\n"),
            None
        );
        assert_eq!(built(&["xargs", "cat"], "a\rb\n"), None);
    }
}
