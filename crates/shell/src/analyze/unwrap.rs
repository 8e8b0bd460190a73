//! Transparent wrappers (SPEC §3.3): `env`, `command`, `exec`, `nohup`,
//! `time`, `nice`, `timeout`, `stdbuf`, `setsid`, `ionice` are removed so the
//! command they run is what gets gated.

use super::crude::shell_quote;
use super::cwd::resolve_opt;
use super::reasons::dangerous_env;
use super::walk::Walker;
use crate::paths::basename;
use crate::word::Word;

impl Walker<'_> {
    /// Remove wrapper layers from the front of `argv`; assignments they
    /// make join `env`, a `env -C DIR` moves the command's own directory.
    /// Returns the unwrapped argv, the wrappers removed (outermost first)
    /// and the command's own working directory.
    pub(super) fn unwrap_wrappers(
        &mut self,
        mut argv: Vec<Word>,
        env: &mut Vec<String>,
        mut own_cwd: Option<String>,
    ) -> (Vec<Word>, Vec<String>, Option<String>) {
        let mut wrappers: Vec<String> = Vec::new();
        while let Some(w0) = argv.first().and_then(Word::lit) {
            let base = basename(&w0).to_string();
            if base == "env" {
                if let Some(split) = env_split_string(&argv) {
                    self.reason("wrapper_option:env");
                    wrappers.push(base);
                    argv = split;
                    continue;
                }
            }
            let unwrap = unwrap_one(&base, &argv);
            if !matches!(unwrap, Unwrap::No) && !crate::paths::is_system_program(&w0) {
                // `./env ls`, `~/bin/timeout 5 ls`: the file there runs, not
                // the wrapper its name suggests. Still unwrapped, so hard
                // deny sees what it is given, but never judged as the
                // wrapped command.
                self.reason(&format!("wrapper_path:{base}"));
            }
            match unwrap {
                Unwrap::No => break,
                Unwrap::Strip {
                    skip,
                    chdir,
                    assigns,
                    odd,
                } => {
                    if odd {
                        self.reason(&format!("wrapper_option:{base}"));
                    }
                    for a in assigns {
                        if dangerous_env(&a) {
                            self.reason(&format!("dangerous_env:{a}"));
                        }
                        env.push(a);
                    }
                    if let Some(d) = chdir {
                        match d.expanded(&self.env.home) {
                            Some(p) => own_cwd = resolve_opt(own_cwd.as_deref(), &p),
                            None => {
                                self.reason("dynamic_path");
                                own_cwd = None;
                            }
                        }
                    }
                    if skip >= argv.len() {
                        // Nothing wrapped: the wrapper is the command.
                        break;
                    }
                    wrappers.push(base);
                    argv.drain(..skip);
                }
            }
        }
        (argv, wrappers, own_cwd)
    }
}

pub(super) enum Unwrap {
    No,
    Strip {
        /// Words to drop from the front.
        skip: usize,
        chdir: Option<Word>,
        assigns: Vec<String>,
        /// An option the unwrapper does not know (still unwrapped).
        odd: bool,
    },
}

/// Options of a wrapper that take a separate value.
pub(super) fn takes_value(base: &str, flag: &str) -> bool {
    match base {
        "timeout" => matches!(flag, "-s" | "--signal" | "-k" | "--kill-after"),
        "nice" => matches!(flag, "-n" | "--adjustment"),
        "ionice" => matches!(
            flag,
            "-c" | "--class" | "-n" | "--classdata" | "-p" | "--pid" | "-P" | "-u"
        ),
        "stdbuf" => matches!(
            flag,
            "-i" | "-o" | "-e" | "--input" | "--output" | "--error"
        ),
        "exec" => matches!(flag, "-a"),
        "time" => matches!(flag, "-f" | "--format"),
        _ => false,
    }
}

/// Decide how one wrapper layer is removed.
pub(super) fn unwrap_one(base: &str, argv: &[Word]) -> Unwrap {
    let lit = |i: usize| argv.get(i).and_then(Word::literal);
    // `command -v NAME` / `-V` looks NAME up; only `command NAME ARGS…`
    // runs it (SPEC §4.4).
    if base == "command"
        && argv
            .iter()
            .skip(1)
            .map_while(Word::literal)
            .take_while(|v| v.starts_with('-'))
            .any(|v| v.contains('v') || v.contains('V'))
    {
        return Unwrap::No;
    }
    match base {
        "command" | "builtin" | "exec" | "nohup" | "time" | "nice" | "timeout" | "stdbuf"
        | "setsid" | "ionice" => {
            let mut i = 1;
            let mut odd = false;
            while let Some(v) = lit(i) {
                if v == "--" {
                    i += 1;
                    break;
                }
                if !v.starts_with('-') || v == "-" {
                    break;
                }
                // GNU time's `-o FILE`/`--output=FILE` (and `-a`, `-f`)
                // write a file the wrapped command does not show (rt20 F1:
                // `command time -o ~/.ssh/authorized_keys …`): only its
                // reporting switches leave it a see-through wrapper.
                if base == "time"
                    && !matches!(
                        v.as_str(),
                        "-p" | "--portability"
                            | "-v"
                            | "--verbose"
                            | "-q"
                            | "--quiet"
                            | "-f"
                            | "--format"
                    )
                    && !v.starts_with("-f")
                    && !v.starts_with("--format=")
                {
                    return Unwrap::No;
                }
                // `ionice -p PID…`, `-P PGID…`, `-u UID…` read every word after
                // as an id and change those processes (rt20 F2): nothing runs.
                if base == "ionice"
                    && ["-p", "-P", "-u", "--pid", "--pgid", "--uid"]
                        .iter()
                        .any(|f| {
                            v == *f
                                || (f.len() == 2 && v.starts_with(f))
                                || v.starts_with(&format!("{f}="))
                        })
                {
                    return Unwrap::No;
                }
                // `nice -10`, `-n10`, `--signal=KILL` carry their value.
                if takes_value(base, &v) {
                    i += 2;
                } else {
                    if base == "command" && !matches!(v.as_str(), "-p" | "-v" | "-V") {
                        odd = true;
                    }
                    i += 1;
                }
            }
            if base == "timeout" {
                // DURATION
                if lit(i).is_some() {
                    i += 1;
                } else if argv.get(i).is_some() {
                    odd = true;
                    i += 1;
                }
            }
            Unwrap::Strip {
                skip: i,
                chdir: None,
                assigns: Vec::new(),
                odd,
            }
        }
        "env" => {
            let mut i = 1;
            let mut chdir = None;
            let mut assigns = Vec::new();
            let mut odd = false;
            while let Some(w) = argv.get(i) {
                let Some(v) = w.literal() else {
                    // `env "$X"=1 cmd` or a dynamic program word.
                    if w.lossy_value().contains('=') {
                        odd = true;
                        i += 1;
                        continue;
                    }
                    break;
                };
                if v == "--" {
                    i += 1;
                    break;
                }
                if v == "-i"
                    || v == "-"
                    || v == "--ignore-environment"
                    || v == "-0"
                    || v == "--null"
                {
                    i += 1;
                } else if v == "-u" || v == "--unset" {
                    i += 2;
                } else if v.starts_with("--unset=") || (v.starts_with("-u") && v.len() > 2) {
                    i += 1;
                } else if v == "-C" || v == "--chdir" {
                    chdir = argv.get(i + 1).cloned();
                    i += 2;
                } else if let Some(d) = v.strip_prefix("--chdir=") {
                    chdir = Some(Word::analyze(d, w.start));
                    i += 1;
                } else if v.starts_with("-C") && v.len() > 2 {
                    chdir = Some(Word::analyze(&v[2..], w.start));
                    i += 1;
                } else if v.starts_with('-') {
                    // -S/--split-string and friends run a re-split string.
                    odd = true;
                    i += 1;
                } else if let Some((name, _)) = crate::pathlike::name_value(&v) {
                    assigns.push(name.to_string());
                    i += 1;
                } else {
                    break;
                }
            }
            Unwrap::Strip {
                skip: i,
                chdir,
                assigns,
                odd,
            }
        }
        _ => Unwrap::No,
    }
}

/// `env [opts] -S STRING args…` / `--split-string=STRING`: the words env
/// would run (the string split on whitespace, then the remaining args).
pub(super) fn env_split_string(argv: &[Word]) -> Option<Vec<Word>> {
    for (i, w) in argv.iter().enumerate().skip(1) {
        let v = w.literal()?;
        let (text, rest_from) = if v == "-S" || v == "--split-string" {
            (argv.get(i + 1)?.literal()?, i + 2)
        } else if let Some(t) = v.strip_prefix("--split-string=") {
            (t.to_string(), i + 1)
        } else if v.starts_with("-S") && v.len() > 2 {
            (v[2..].to_string(), i + 1)
        } else if v.starts_with('-') {
            continue;
        } else {
            return None;
        };
        let mut out: Vec<Word> = text
            .split_whitespace()
            .map(|t| Word::analyze(&shell_quote(t), w.start))
            .collect();
        out.extend(argv.iter().skip(rest_from).cloned());
        return (!out.is_empty()).then_some(out);
    }
    None
}

/// Unwrap without side effects (inner commands of xargs, crude scans).
pub(super) fn unwrap_plain(argv: &[Word]) -> (Vec<Word>, Vec<String>) {
    let mut v = argv.to_vec();
    let mut wrappers = Vec::new();
    for _ in 0..16 {
        let Some(w0) = v.first().and_then(Word::literal) else {
            break;
        };
        let base = basename(&w0).to_string();
        match unwrap_one(&base, &v) {
            Unwrap::Strip { skip, .. } if skip < v.len() => {
                wrappers.push(base);
                v.drain(..skip);
            }
            _ => break,
        }
    }
    (v, wrappers)
}
