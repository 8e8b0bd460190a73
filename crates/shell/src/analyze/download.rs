//! A download written to a file and run by a later command of the same call
//! (`curl -o x.sh URL && sh x.sh`, `wget URL; bash f.sh`, `curl URL | tee
//! x.sh; sh x.sh`: rt28a). Not one of SPEC §9.3's `remote_code` routes (the
//! shared case opt-065 keeps it an ask a human sees); `auto` mode denies
//! it. The files are named lexically, each against its command's working
//! directory.

use super::Invocation;
use crate::paths::{basename, resolve};
use crate::syntax::{RedirKind, RedirTarget};
use crate::verbs::{is_interpreter, is_shell, DOWNLOADERS};
use crate::word::Word;

/// Whether an invocation runs a file an earlier one downloaded.
pub(super) fn runs_download(invs: &[Invocation], home: &str) -> bool {
    let mut files: Vec<String> = Vec::new();
    let mut piped_from_download = false;
    for inv in invs {
        let base = inv.run_base();
        let abs = |w: &str| -> Option<String> {
            if w.starts_with('/') {
                Some(resolve("/", w))
            } else {
                inv.cwd.as_deref().map(|c| resolve(c, w))
            }
        };
        // What this command runs: a script operand of a shell or an
        // interpreter, `source F`, or the program itself.
        if !files.is_empty() {
            let lits: Vec<Option<String>> = inv.argv.iter().map(|w| w.expanded(home)).collect();
            let mut run: Vec<String> = Vec::new();
            if let Some(Some(p)) = lits.first() {
                if p.contains('/') {
                    run.push(p.clone());
                }
            }
            if is_shell(&base) || is_interpreter(&base) || matches!(base.as_str(), "source" | ".") {
                if let Some(Some(s)) = lits
                    .iter()
                    .skip(1)
                    .find(|w| w.as_deref().is_some_and(|v| !v.starts_with('-')))
                {
                    run.push(s.clone());
                }
            }
            if run
                .iter()
                .filter_map(|r| abs(r))
                .any(|r| files.contains(&r))
            {
                return true;
            }
        }
        let downloader = DOWNLOADERS.contains(&base.as_str());
        let mut outputs: Vec<String> = Vec::new();
        if downloader {
            outputs.extend(download_outputs(&base, &inv.argv, home));
            // `curl URL > f`: its standard output.
            for r in &inv.redirects {
                if matches!(
                    r.kind,
                    RedirKind::Write | RedirKind::Append | RedirKind::Clobber | RedirKind::OutErr
                ) && !r.op.starts_with('2')
                {
                    if let RedirTarget::File(w) = &r.target {
                        outputs.extend(w.expanded(home));
                    }
                }
            }
            piped_from_download = inv.piped_or_async;
        } else if base == "tee" && piped_from_download {
            outputs.extend(
                inv.argv
                    .iter()
                    .skip(1)
                    .filter_map(|w| w.expanded(home))
                    .filter(|v| !v.starts_with('-')),
            );
        } else if !inv.piped_or_async {
            piped_from_download = false;
        }
        files.extend(outputs.iter().filter_map(|o| abs(o)));
    }
    false
}

/// The files a downloader's own options write: curl `-o F`/`--output F`,
/// `-O`/`--remote-name` (the URL's last name), wget `-O F`/`--output-
/// document=F` or the URL's last name.
fn download_outputs(base: &str, argv: &[Word], home: &str) -> Vec<String> {
    let words: Vec<String> = argv
        .iter()
        .skip(1)
        .map(|w| w.expanded(home).unwrap_or_default())
        .collect();
    let urls: Vec<&String> = words.iter().filter(|w| w.contains("://")).collect();
    let url_name = |u: &str| {
        let path = u.split(['?', '#']).next().unwrap_or(u);
        let name = basename(path.trim_end_matches('/'));
        (!name.is_empty() && !name.contains(':')).then(|| name.to_string())
    };
    let mut out = Vec::new();
    let mut remote_name = false;
    let mut named = false;
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        let next = words.get(i + 1).cloned();
        match (base, w) {
            ("curl", "-o" | "--output") | ("wget", "-O" | "--output-document") => {
                out.extend(next);
                named = true;
                i += 1;
            }
            ("curl", "-O" | "--remote-name" | "--remote-name-all") => remote_name = true,
            _ => {
                if let Some(v) = w
                    .strip_prefix("--output=")
                    .or_else(|| w.strip_prefix("--output-document="))
                {
                    out.push(v.to_string());
                    named = true;
                } else if w.starts_with('-') && !w.starts_with("--") {
                    // A cluster: curl `-sSLo F`, `-oF`, `-fsSLO`; wget `-O F`,
                    // `-OF`, `-qO-`.
                    let letter = if base == "curl" { 'o' } else { 'O' };
                    if let Some(at) = w.find(letter) {
                        let glued = &w[at + 1..];
                        if glued.is_empty() {
                            out.extend(next);
                            i += 1;
                        } else {
                            out.push(glued.to_string());
                        }
                        named = true;
                    } else if base == "curl" && w.contains('O') {
                        remote_name = true;
                    }
                }
            }
        }
        i += 1;
    }
    if remote_name || (base == "wget" && !named) {
        out.extend(urls.iter().filter_map(|u| url_name(u)));
    }
    out.retain(|o| o != "-" && !o.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outs(base: &str, cmd: &str) -> Vec<String> {
        let argv: Vec<Word> = cmd
            .split(' ')
            .map(|t| Word::static_text(t, 0, false))
            .collect();
        download_outputs(base, &argv, "/home/u")
    }

    #[test]
    fn downloaders_name_their_files() {
        assert_eq!(outs("curl", "curl -o a.sh http://h/x"), ["a.sh"]);
        assert_eq!(outs("curl", "curl -fsSLo a.sh http://h/x"), ["a.sh"]);
        assert_eq!(outs("curl", "curl -oa.sh http://h/x"), ["a.sh"]);
        assert_eq!(outs("curl", "curl --output=a.sh http://h/x"), ["a.sh"]);
        assert_eq!(outs("curl", "curl -O http://h/d/i.sh?v=1"), ["i.sh"]);
        assert_eq!(outs("curl", "curl -fsSLO http://h/i.sh"), ["i.sh"]);
        assert_eq!(outs("wget", "wget http://h/i.sh"), ["i.sh"]);
        assert_eq!(outs("wget", "wget -O x http://h/i.sh"), ["x"]);
        assert_eq!(
            outs("wget", "wget -qO- http://h/i.sh"),
            Vec::<String>::new()
        );
        assert!(outs("curl", "curl -s http://h/x").is_empty());
    }
}
