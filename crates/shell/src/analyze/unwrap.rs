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
                if let Some((split, chdir)) = env_split_string(&argv, &self.env.home) {
                    self.reason("wrapper_option:env");
                    // `env -C / -S 'rm -rf .'` (rt24): the split line runs
                    // in that directory.
                    if let Some(d) = chdir {
                        own_cwd = self.wrapper_chdir(&d, own_cwd);
                    }
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
                        own_cwd = self.wrapper_chdir(&d, own_cwd);
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

    /// The command's own directory after a wrapper's `-C DIR` (`env -C`):
    /// unknown, and the call complex, when DIR is dynamic.
    fn wrapper_chdir(&mut self, dir: &Word, own_cwd: Option<String>) -> Option<String> {
        match dir.expanded(&self.env.home) {
            Some(p) => resolve_opt(own_cwd.as_deref(), &p),
            None => {
                self.reason("dynamic_path");
                None
            }
        }
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

/// How a wrapper reads one of its options.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Arity {
    /// A switch.
    Flag,
    /// Takes a value: the rest of a short cluster (`-n10`), `--name=V`,
    /// or the next word.
    Value,
    /// The wrapper does something else than run the command as it is:
    /// writes a file (`time -o`), acts on other processes (`ionice -p`),
    /// prints and exits (`--help`). Not a see-through wrapper.
    Stop,
}

/// A see-through wrapper's command line, read the way its own parser reads
/// it: every one of these stops at its first operand (getopt's `+`, or
/// bash's builtin option reader), takes clusters of short options, glued
/// values (`-aNAME`, `-oL`) and `--`; the GNU and util-linux ones also take
/// unambiguous abbreviations of long options (`--sig=KILL`, `--verb`).
struct WrapperSpec {
    shorts: &'static [(char, Arity)],
    longs: &'static [(&'static str, Arity)],
    /// `nice -10`, `nice --5`: the niceness as an option.
    number_option: bool,
    /// Operands before the command (`timeout DURATION`).
    leading_operands: usize,
}

use Arity::{Flag, Stop, Value};

const GNU_INFO: &[(&str, Arity)] = &[("help", Stop), ("version", Stop)];

fn wrapper_spec(base: &str) -> Option<WrapperSpec> {
    let spec = |shorts, longs, number_option, leading_operands| WrapperSpec {
        shorts,
        longs,
        number_option,
        leading_operands,
    };
    Some(match base {
        // bash builtins: short options only (`command -v` is a lookup,
        // handled before).
        "command" => spec(&[('p', Flag), ('v', Stop), ('V', Stop)], &[], false, 0),
        "builtin" => spec(&[], &[], false, 0),
        // `exec -l -a NAME`: a cluster ends in `a` and the next word is
        // the name (`exec -la ls rm -f x` runs `rm`).
        "exec" => spec(&[('c', Flag), ('l', Flag), ('a', Value)], &[], false, 0),
        "nohup" => spec(&[], GNU_INFO, false, 0),
        // GNU time: `-o FILE`, `-a` write a file the wrapped command does
        // not show (rt20 F1); only its reporting switches and `-f FORMAT`
        // leave it see-through.
        "time" => spec(
            &[
                ('p', Flag),
                ('v', Flag),
                ('q', Flag),
                ('f', Value),
                ('o', Stop),
                ('a', Stop),
                ('V', Stop),
            ],
            &[
                ("portability", Flag),
                ("verbose", Flag),
                ("quiet", Flag),
                ("format", Value),
                ("output", Stop),
                ("append", Stop),
                ("help", Stop),
                ("version", Stop),
            ],
            false,
            0,
        ),
        "nice" => spec(
            &[('n', Value)],
            &[("adjustment", Value), ("help", Stop), ("version", Stop)],
            true,
            0,
        ),
        "timeout" => spec(
            &[('s', Value), ('k', Value), ('v', Flag)],
            &[
                ("signal", Value),
                ("kill-after", Value),
                ("verbose", Flag),
                ("foreground", Flag),
                ("preserve-status", Flag),
                ("help", Stop),
                ("version", Stop),
            ],
            false,
            1,
        ),
        "stdbuf" => spec(
            &[('i', Value), ('o', Value), ('e', Value)],
            &[
                ("input", Value),
                ("output", Value),
                ("error", Value),
                ("help", Stop),
                ("version", Stop),
            ],
            false,
            0,
        ),
        "setsid" => spec(
            &[
                ('c', Flag),
                ('f', Flag),
                ('w', Flag),
                ('h', Stop),
                ('V', Stop),
            ],
            &[
                ("ctty", Flag),
                ("fork", Flag),
                ("wait", Flag),
                ("help", Stop),
                ("version", Stop),
            ],
            false,
            0,
        ),
        // `ionice -p PID…`, `-P PGID…`, `-u UID…` read every later word as
        // an id and change those processes (rt20 F2): nothing runs.
        "ionice" => spec(
            &[
                ('c', Value),
                ('n', Value),
                ('t', Flag),
                ('p', Stop),
                ('P', Stop),
                ('u', Stop),
                ('h', Stop),
                ('V', Stop),
            ],
            &[
                ("class", Value),
                ("classdata", Value),
                ("ignore", Flag),
                ("pid", Stop),
                ("pgid", Stop),
                ("uid", Stop),
                ("help", Stop),
                ("version", Stop),
            ],
            false,
            0,
        ),
        _ => return None,
    })
}

/// What one option word does: words it takes (itself included), whether it
/// is one the table does not know (or misuses), or a [`Arity::Stop`].
enum OptionWord {
    Takes { words: usize, odd: bool },
    Stop,
}

const fn take(words: usize, odd: bool) -> OptionWord {
    OptionWord::Takes { words, odd }
}

fn read_option(spec: &WrapperSpec, v: &str) -> OptionWord {
    if let Some(long) = v.strip_prefix("--") {
        let (name, glued) = match long.split_once('=') {
            Some((n, _)) => (n, true),
            None => (long, false),
        };
        let exact = spec.longs.iter().find(|(l, _)| *l == name);
        let mut prefixed = spec.longs.iter().filter(|(l, _)| l.starts_with(name));
        let found = exact.or_else(|| match (prefixed.next(), prefixed.next()) {
            (Some(one), None) if !name.is_empty() => Some(one),
            _ => None,
        });
        return match found.map(|(_, a)| *a) {
            Some(Stop) => OptionWord::Stop,
            Some(Value) if glued => take(1, false),
            Some(Value) => take(2, false),
            Some(Flag) => take(1, glued),
            // `nice --5`
            None if spec.number_option && long.bytes().all(|b| b.is_ascii_digit()) => {
                take(1, false)
            }
            None => take(1, true),
        };
    }
    let cluster = &v[1..];
    if spec.number_option
        && cluster
            .strip_prefix(['+', '-'])
            .unwrap_or(cluster)
            .bytes()
            .all(|b| b.is_ascii_digit())
    {
        return take(1, false);
    }
    for (at, c) in cluster.char_indices() {
        match spec.shorts.iter().find(|(s, _)| *s == c).map(|(_, a)| *a) {
            Some(Flag) => {}
            Some(Stop) => return OptionWord::Stop,
            Some(Value) => {
                let glued = at + c.len_utf8() < cluster.len();
                return take(if glued { 1 } else { 2 }, false);
            }
            None => return take(1, true),
        }
    }
    take(1, false)
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
    if let Some(spec) = wrapper_spec(base) {
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
            match read_option(&spec, &v) {
                OptionWord::Stop => return Unwrap::No,
                OptionWord::Takes { words, odd: o } => {
                    odd |= o;
                    i += words;
                }
            }
        }
        for _ in 0..spec.leading_operands {
            // `timeout DURATION`: a dynamic one is still one word.
            if argv.get(i).is_some() {
                odd |= lit(i).is_none();
                i += 1;
            }
        }
        return Unwrap::Strip {
            skip: i,
            chdir: None,
            assigns: Vec::new(),
            odd,
        };
    }
    match base {
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
pub(super) fn env_split_string(argv: &[Word], home: &str) -> Option<(Vec<Word>, Option<Word>)> {
    let mut i = 1;
    let mut chdir: Option<Word> = None;
    while let Some(w) = argv.get(i) {
        let v = w.literal()?;
        if v == "--" || !v.starts_with('-') || v == "-" {
            return None;
        }
        let mut split: Option<(String, usize)> = None;
        if let Some(long) = v.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, val)) => (n, Some(val)),
                None => (long, None),
            };
            // Any abbreviation of `--split-string` (`--split-s`, `--s`).
            if !name.is_empty() && "split-string".starts_with(name) {
                split = Some(match value {
                    Some(t) => (t.to_string(), i + 1),
                    None => (argv.get(i + 1)?.literal()?, i + 2),
                });
            } else if !name.is_empty() && "chdir".starts_with(name) {
                match value {
                    Some(d) => chdir = Some(Word::analyze(&shell_quote(d), w.start)),
                    None => {
                        chdir = Some(argv.get(i + 1)?.clone());
                        i += 1;
                    }
                }
                i += 1;
                continue;
            } else if value.is_none() && "unset".starts_with(name) {
                i += 2;
                continue;
            }
        } else {
            // A cluster (`-iS STRING`, `-vSSTRING`): `u` and `C` take the
            // rest or the next word; `S` the same, as the string.
            for (k, c) in v[1..].char_indices() {
                let rest = &v[1 + k + c.len_utf8()..];
                match c {
                    'S' => {
                        split = Some(if rest.is_empty() {
                            (argv.get(i + 1)?.literal()?, i + 2)
                        } else {
                            (rest.to_string(), i + 1)
                        });
                        break;
                    }
                    'u' | 'C' => {
                        if c == 'C' {
                            chdir = Some(if rest.is_empty() {
                                argv.get(i + 1)?.clone()
                            } else {
                                Word::analyze(&shell_quote(rest), w.start)
                            });
                        }
                        if rest.is_empty() {
                            i += 1;
                        }
                        break;
                    }
                    _ => {}
                }
            }
        }
        if let Some((text, rest_from)) = split {
            let mut out: Vec<Word> = split_string(&text, home)?
                .iter()
                .map(|t| Word::analyze(&shell_quote(t), w.start))
                .collect();
            out.extend(argv.iter().skip(rest_from).cloned());
            return (!out.is_empty()).then_some((out, chdir));
        }
        i += 1;
    }
    None
}

/// GNU env's `-S STRING` split (rt22 F4: `env -S "bash -c 'rm -rf ~'"`
/// hands `rm -rf ~` to bash as one word): whitespace separates, `'…'` is
/// literal but for `\\` and `\'`, `"…"` takes backslash escapes, `\_` is a
/// space (separating outside quotes), `\c` ends the string, `#` starting a
/// word begins a comment, `${HOME}` is the home. Another `${VAR}`, an
/// unknown escape or an unterminated quote: `None` (not read).
fn split_string(text: &str, home: &str) -> Option<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    let mut cur: Option<String> = None;
    let mut chars = text.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c') => {
                out.extend(cur.take());
            }
            (None, '#') if cur.is_none() => break,
            (None, '\'' | '"') => {
                quote = Some(c);
                cur.get_or_insert_with(String::new);
            }
            (Some(q), _) if c == q => quote = None,
            (_, '$') if chars.peek() == Some(&'{') => {
                // `${HOME}` is the home the gate knows; any other variable
                // is not read.
                let name: String = chars.clone().skip(1).take_while(|c| *c != '}').collect();
                if name != "HOME" {
                    return None;
                }
                for _ in 0.."{HOME}".len() {
                    chars.next();
                }
                cur.get_or_insert_with(String::new).push_str(home);
            }
            (q, '\\') => {
                let e = chars.next()?;
                let word = cur.get_or_insert_with(String::new);
                match (q, e) {
                    (_, '\\' | '\'') => word.push(e),
                    (Some('\''), _) => {
                        word.push('\\');
                        word.push(e);
                    }
                    (_, '"' | '$' | '#') => word.push(e),
                    (None, '_') => out.extend(cur.take()),
                    (_, '_') => word.push(' '),
                    (_, 't') => word.push('\t'),
                    (_, 'n') => word.push('\n'),
                    (_, 'r') => word.push('\r'),
                    (_, 'f') => word.push('\x0c'),
                    (_, 'v') => word.push('\x0b'),
                    (_, 'c') => {
                        out.extend(cur.take());
                        return Some(out);
                    }
                    _ => return None,
                }
            }
            _ => cur.get_or_insert_with(String::new).push(c),
        }
    }
    if quote.is_some() {
        return None;
    }
    out.extend(cur.take());
    Some(out)
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
