//! Literal program text of another language (Python, Node, Ruby, Perl,
//! PHP, Lua, R, awk, AppleScript) read for what hard deny cares about
//! (SPEC §15.19): the strings it hands to a shell or runs as a command
//! line, the trees its library calls delete, and processes forked without
//! bound.
//!
//! This is not a parser of those languages: it finds the call shapes that
//! run or delete something named by a literal (or by a name the same
//! program set to a literal), and everything it finds only adds to what
//! hard deny checks. Whatever it misses stays what it was (inline code is
//! complex, §4.2).

/// A value the program names: a literal string, or a path under the
/// user's home reached through the language's API (`os.homedir()`,
/// `Path.home()`, `ENV['HOME']`): the rest after `~`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Val {
    Lit(String),
    Home(String),
}

impl Val {
    /// As one shell word.
    fn word(&self) -> String {
        match self {
            Val::Lit(s) => quote(s),
            Val::Home(rest) if rest.is_empty() => "~".to_string(),
            // `~'/x'` would not expand (a quoted character in the tilde
            // prefix): the slash stays outside the quotes.
            Val::Home(rest) => match rest.strip_prefix('/') {
                Some("") => "~/".to_string(),
                Some(r) => format!("~/{}", quote(r)),
                None => format!("~{}", quote(rest)),
            },
        }
    }

    /// As shell text (a command string).
    fn text(&self) -> String {
        match self {
            Val::Lit(s) => s.clone(),
            Val::Home(_) => self.word(),
        }
    }
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Calls that run a command: one string is a shell command line, a list
/// (or several strings) an argv.
const CALLS: &[&str] = &[
    "system",
    "popen",
    "exec",
    "execSync",
    "spawnSync",
    "execFileSync",
    "shell_exec",
    "passthru",
    "proc_open",
    "check_output",
    "check_call",
    "call",
    "run",
    "Popen",
    "getoutput",
    "getstatusoutput",
    "spawn",
    "execFile",
    "execv",
    "execve",
    "execvp",
    "execvpe",
    "execl",
    "execle",
    "execlp",
    "execlpe",
    "capture2",
    "capture2e",
    "capture3",
    "popen2",
    "popen3",
    "pipeline",
    // Lua `os.execute("…")`.
    "execute",
    // Deno `new Deno.Command("rm", { args: [...] })`.
    "Command",
    // Vim script (`call systemlist("…")`, `job_start(…)`, nvim's
    // `jobstart`/`termopen`).
    "systemlist",
    "job_start",
    "jobstart",
    "termopen",
];

/// Calls whose list argument starts with the program's own name (argv[0]),
/// after the path of the program: `os.execvp('rm', ['rm', '-rf', '/'])`,
/// `os.execl('/bin/rm', 'rm', '-rf', '/')`.
const ARGV0_CALLS: &[&str] = &[
    "execv", "execve", "execvp", "execvpe", "execl", "execle", "execlp", "execlpe", "spawnl",
    "spawnle", "spawnlp", "spawnlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe",
];

/// Python's `os.spawn*(mode, path, argv0, …)`: the mode comes first.
const MODE_FIRST_CALLS: &[&str] = &[
    "spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe",
];

/// Calls written without parentheses in Perl and Ruby (`system "…"`,
/// `exec "rm", "-rf", "/"`, `system qw(rm -rf /)`).
const BARE_CALLS: &[&str] = &["system", "exec", "spawn", "popen"];

/// Library calls that delete a tree (Python `shutil.rmtree`, Node
/// `fs.rmSync`/`rmdirSync`/`fs.promises.rm`, fs-extra `removeSync`, Ruby
/// `FileUtils.rm_rf`/`rm_r`/`remove_dir`/`remove_entry`, Perl
/// `rmtree`/`remove_tree`, the `rimraf` module): read as `rm -rf` of their
/// first argument.
const DELETES: &[&str] = &[
    "rmtree",
    "rm",
    "rmSync",
    "rmdirSync",
    "removeSync",
    "rimraf",
    "rimrafSync",
    "rm_rf",
    "rm_r",
    "remove_dir",
    "remove_entry",
    "remove_entry_secure",
    "remove_tree",
];

/// The home directory as the languages' APIs name it (whitespace removed,
/// quotes made double).
const HOME_EXPRS: &[&str] = &[
    "require(\"os\").homedir()",
    "require(\"node:os\").homedir()",
    "os.homedir()",
    "homedir()",
    "os.userInfo().homedir",
    "require(\"os\").userInfo().homedir",
    "pathlib.Path.home()",
    "Path.home()",
    "pathlib.Path(\"~\").expanduser()",
    "Path(\"~\").expanduser()",
    "Dir.home",
    "Dir.home()",
    "ENV[\"HOME\"]",
    "ENV.fetch(\"HOME\")",
    "os.environ[\"HOME\"]",
    "environ[\"HOME\"]",
    "os.environ.get(\"HOME\")",
    "os.getenv(\"HOME\")",
    "getenv(\"HOME\")",
    "process.env.HOME",
    "process.env[\"HOME\"]",
    "$ENV{HOME}",
    "$ENV{\"HOME\"}",
    "Deno.env.get(\"HOME\")",
    "Deno.homeDir()",
    "Sys.getenv(\"HOME\")",
    "path.expand(\"~\")",
];

/// Calls that expand `~` in their string argument.
const EXPANDERS: &[&str] = &[
    "os.path.expanduser(",
    "path.expanduser(",
    "expanduser(",
    "File.expand_path(",
    "path.expand(",
];

/// How far [`Src::arg_end`] looks for the end of one argument.
const ARG_SCAN_MAX: usize = 4096;

struct Src {
    c: Vec<char>,
}

impl Src {
    fn at(&self, i: usize) -> Option<char> {
        self.c.get(i).copied()
    }

    fn ws(&self, mut i: usize) -> usize {
        while self.at(i).is_some_and(char::is_whitespace) {
            i += 1;
        }
        i
    }

    fn is_ident_char(ch: char) -> bool {
        ch.is_ascii_alphanumeric() || ch == '_'
    }

    /// An identifier at `i` (Perl/PHP `$name` included).
    fn ident(&self, i: usize) -> Option<(String, usize)> {
        let mut j = i;
        if self.at(j) == Some('$') {
            j += 1;
        }
        if !self
            .at(j)
            .is_some_and(|ch| ch.is_ascii_alphabetic() || ch == '_')
        {
            return None;
        }
        while self.at(j).is_some_and(Self::is_ident_char) {
            j += 1;
        }
        Some((self.c[i..j].iter().collect(), j))
    }

    /// A string literal at `i` (an `r`/`b`/`u` prefix allowed; Python
    /// triple quotes), escapes decoded as the languages decode them in
    /// double quotes (`\x20`, `\040`, `\u0020`); returns it and the index
    /// after it.
    fn string(&self, i: usize) -> Option<(String, usize)> {
        let mut i = i;
        let mut k = 0;
        while k < 2
            && self
                .at(i)
                .is_some_and(|ch| matches!(ch, 'r' | 'R' | 'b' | 'B' | 'u' | 'U' | 'f' | 'F'))
        {
            i += 1;
            k += 1;
        }
        let q = self.at(i)?;
        if !matches!(q, '"' | '\'' | '`') {
            return None;
        }
        let n = self.c.len();
        let c = &self.c;
        let triple = i + 2 < n && c[i + 1] == q && c[i + 2] == q;
        let mut j = if triple { i + 3 } else { i + 1 };
        let mut s = String::new();
        while j < n {
            if c[j] == '\\' && j + 1 < n {
                let (ch, next) = escape(c, j + 1);
                s.push(ch);
                j = next;
                continue;
            }
            if c[j] == q && (!triple || (j + 2 < n && c[j + 1] == q && c[j + 2] == q)) {
                return Some((s, if triple { j + 3 } else { j + 1 }));
            }
            s.push(c[j]);
            j += 1;
        }
        None
    }

    /// Where the argument or statement starting at `i` ends: a `,`, a
    /// closing bracket, `;` or a line break at depth 0.
    fn arg_end(&self, i: usize) -> usize {
        let mut depth = 0usize;
        let mut j = i;
        // An argument longer than this is not a value hard deny reads
        // (the home through an API, a name): the scan stops there, so
        // that calling it at every `=` of hostile input stays linear.
        let limit = i.saturating_add(ARG_SCAN_MAX);
        while let Some(ch) = self.at(j).filter(|_| j < limit) {
            match ch {
                '"' | '\'' | '`' => {
                    if let Some((_, e)) = self.string(j) {
                        j = e;
                        continue;
                    }
                }
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' if depth == 0 => return j,
                ')' | ']' | '}' => depth -= 1,
                ',' | ';' | '\n' if depth == 0 => return j,
                _ => {}
            }
            j += 1;
        }
        j
    }

    /// A value at `i`: a string literal, the home through an API, or a name
    /// bound to one of those.
    fn value(&self, i: usize, vars: &[(String, Val)]) -> Vec<(Val, usize)> {
        // A keyword argument (`rmtree(path="/")`): its value. One step
        // only: `a=a=a=…` is not one, and walking it from every `=` would
        // be quadratic.
        let mut i = i;
        if let Some((_, e)) = self.ident(i) {
            let eq = self.ws(e);
            if self.at(eq) == Some('=') && self.at(eq + 1) != Some('=') {
                i = self.ws(eq + 1);
            }
        }
        if let Some((mut s, mut e)) = self.string(i).or_else(|| self.quote_word(i)) {
            // Adjacent literals are one string (Python, awk: `"rm -rf "
            // "/"`). Also the start of a longer expression (`"rm -rf /" +
            // x`): what follows only adds to it.
            while let Some((more, e2)) = self.string(self.ws(e)) {
                s.push_str(&more);
                e = e2;
            }
            return vec![(Val::Lit(s), e)];
        }
        let end = self.arg_end(i);
        let text: String = self.c[i..end]
            .iter()
            .filter(|ch| !ch.is_whitespace())
            .map(|&ch| if ch == '\'' { '"' } else { ch })
            .collect();
        if text.is_empty() {
            return Vec::new();
        }
        if HOME_EXPRS.contains(&text.as_str()) {
            return vec![(Val::Home(String::new()), end)];
        }
        for e in EXPANDERS {
            if let Some(inner) = text.strip_prefix(e).and_then(|r| r.strip_suffix(')')) {
                if let Some(p) = inner.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
                    if !p.contains('"') {
                        if let Some(rest) = p.strip_prefix('~') {
                            if rest.is_empty() || rest.starts_with('/') {
                                return vec![(Val::Home(rest.to_string()), end)];
                            }
                        }
                        return vec![(Val::Lit(p.to_string()), end)];
                    }
                }
            }
        }
        // A name the program set to a value.
        let bound: Vec<(Val, usize)> = vars
            .iter()
            .filter(|(n, _)| *n == text)
            .map(|(_, v)| (v.clone(), end))
            .collect();
        bound
    }

    /// Comma-separated values from `i` up to a closing bracket or the end
    /// of the statement; `None` when one of them is not a value.
    fn values(&self, i: usize, vars: &[(String, Val)]) -> Option<(Vec<Val>, usize)> {
        let mut out = Vec::new();
        let mut k = self.ws(i);
        loop {
            let v = self.value(k, vars).into_iter().next()?;
            out.push(v.0);
            let e = self.ws(v.1);
            if self.at(e) == Some(',') {
                k = self.ws(e + 1);
                continue;
            }
            return Some((out, e));
        }
    }

    /// A list literal `[…]` of values at `i` (`None` when not a list).
    /// Elements that are not values (`'/' + x`, a call) are left out.
    fn list(&self, i: usize, vars: &[(String, Val)]) -> Option<(Vec<Val>, usize)> {
        if self.at(i) != Some('[') {
            return None;
        }
        let mut out = Vec::new();
        let mut k = i + 1;
        loop {
            k = self.ws(k);
            if let Some((v, _)) = self.value(k, vars).into_iter().next() {
                out.push(v);
            }
            let e = self.arg_end(k);
            match self.at(e) {
                Some(',') => k = e + 1,
                Some(']') => return Some((out, e + 1)),
                _ => return None,
            }
        }
    }

    /// An object literal `{ …, KEY: […], … }` at `i` whose `args` or `cmd`
    /// key holds a list of values (Deno `{ args: ["-rf", "/"] }`, `{ cmd:
    /// ["rm", …] }`, Bun `{ cmd: […] }`): that list.
    fn object_list(&self, i: usize, vars: &[(String, Val)]) -> Option<(Vec<Val>, usize)> {
        if self.at(i) != Some('{') {
            return None;
        }
        let mut k = i + 1;
        loop {
            k = self.ws(k);
            let key = match self.ident(k) {
                Some((w, e)) => Some((w, e)),
                None => self.string(k),
            };
            let (name, e) = key?;
            let colon = self.ws(e);
            if self.at(colon) != Some(':') {
                return None;
            }
            let v = self.ws(colon + 1);
            if matches!(name.as_str(), "args" | "cmd") {
                if let Some(found) = self.list(v, vars) {
                    return Some(found);
                }
            }
            let end = self.arg_end(v);
            match self.at(end) {
                Some(',') => k = end + 1,
                _ => return None,
            }
        }
    }

    /// Perl's `q(…)`/`qq(…)` and Ruby's `%q(…)`/`%Q(…)`/`%(…)`: a string
    /// with its own delimiters (brackets nest one level deep, enough for
    /// what hard deny reads).
    fn quote_word(&self, i: usize) -> Option<(String, usize)> {
        let mut j = i;
        if self.at(j) == Some('%') {
            j += 1;
            if matches!(self.at(j), Some('q' | 'Q')) {
                j += 1;
            }
        } else if self.at(j) == Some('q') {
            j += 1;
            if self.at(j) == Some('q') {
                j += 1;
            }
            // `q` must stand alone (not the end of `seq` or `freq`).
            if i > 0 && self.at(i - 1).is_some_and(Self::is_ident_char) {
                return None;
            }
        } else {
            return None;
        }
        if matches!(self.at(j), Some('=' | ',')) {
            return None;
        }
        self.delimited_body(j)
    }

    /// The text between the delimiter at `j` (a bracket pairs with its
    /// closing one, any other punctuation with itself) and its close, and
    /// the index after the close.
    fn delimited_body(&self, j: usize) -> Option<(String, usize)> {
        let open = self.at(j)?;
        let close = match open {
            '(' => ')',
            '[' => ']',
            '{' => '}',
            '<' => '>',
            o if !o.is_alphanumeric() && !o.is_whitespace() => o,
            _ => return None,
        };
        let end = self.c[j + 1..].iter().position(|&x| x == close)? + j + 1;
        Some((self.c[j + 1..end].iter().collect(), end + 1))
    }

    /// Perl `qw(…)` (any bracket or delimiter): its words.
    fn qw(&self, i: usize) -> Option<(Vec<Val>, usize)> {
        if !(self.at(i) == Some('q') && self.at(i + 1) == Some('w')) {
            return None;
        }
        let (words, after) = self.delimited_body(self.ws(i + 2))?;
        let vals = words
            .split_whitespace()
            .map(|w| Val::Lit(w.to_string()))
            .collect();
        Some((vals, after))
    }
}

/// One escape after a backslash at `c[i]`: the character and the index
/// after the escape.
fn escape(c: &[char], i: usize) -> (char, usize) {
    let e = c[i];
    let digits = |start: usize, max: usize, radix: u32| -> (Option<char>, usize) {
        let mut j = start;
        let mut v: u32 = 0;
        while j < c.len() && j - start < max && c[j].is_digit(radix) {
            v = v * radix + c[j].to_digit(radix).unwrap_or(0);
            j += 1;
        }
        if j == start {
            return (None, start);
        }
        (char::from_u32(v), j)
    };
    match e {
        'n' => ('\n', i + 1),
        't' => ('\t', i + 1),
        'r' => ('\r', i + 1),
        'x' => match digits(i + 1, 2, 16) {
            (Some(ch), j) => (ch, j),
            _ => ('x', i + 1),
        },
        'u' if c.get(i + 1) == Some(&'{') => match digits(i + 2, 6, 16) {
            (Some(ch), j) if c.get(j) == Some(&'}') => (ch, j + 1),
            _ => ('u', i + 1),
        },
        'u' => match digits(i + 1, 4, 16) {
            (Some(ch), j) if j == i + 5 => (ch, j),
            _ => ('u', i + 1),
        },
        '0'..='7' => match digits(i, 3, 8) {
            (Some(ch), j) => (ch, j),
            _ => (e, i + 1),
        },
        other => (other, i + 1),
    }
}

/// Names the program sets to a value (`cmd = "rm -rf /"`, `my $c = '…'`,
/// `const h = os.homedir()`), every value each name is given.
fn assignments(s: &Src) -> Vec<(String, Val)> {
    let mut out = Vec::new();
    let n = s.c.len();
    let mut i = 0;
    while i < n {
        let boundary = i == 0 || !(Src::is_ident_char(s.c[i - 1]) || s.c[i - 1] == '.');
        if boundary {
            if let Some((name, e)) = s.ident(i) {
                let j = s.ws(e);
                let eq =
                    s.at(j) == Some('=') && s.at(j + 1) != Some('=') && s.at(j + 1) != Some('~');
                if eq {
                    let k = s.ws(j + 1);
                    for (v, _) in s.value(k, &[]) {
                        out.push((name.clone(), v));
                    }
                }
                i = e;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Shell names (for `print … | "sh"` in awk).
fn names_shell(cmd: &str) -> bool {
    let first = cmd.split_whitespace().next().unwrap_or("");
    let base = first.rsplit('/').next().unwrap_or(first);
    matches!(
        base,
        "sh" | "bash" | "dash" | "zsh" | "ksh" | "ash" | "mksh"
    ) && !cmd.split_whitespace().skip(1).any(|w| w.starts_with("-c"))
}

/// An argv as a shell command line (each word quoted).
fn argv_line(words: &[Val]) -> String {
    words.iter().map(Val::word).collect::<Vec<_>>().join(" ")
}

/// Code that hands a string to a shell, in literal inline code of any
/// interpreter: the first string argument of `system`, `os.system`,
/// `os.popen`, `subprocess.*(…, shell=True)`, `exec`, `execSync`,
/// `child_process.exec`, `popen`, `shell_exec`, `passthru`, Lua
/// `os.execute`, AppleScript `do shell script`, backquote or
/// `%x{}`/`qx{}` strings, awk's `print … | "cmd"` and `"cmd" | getline`;
/// argument lists (`subprocess.run(["rm", …])`, `spawnSync('rm', ['-rf',
/// '/'])`, `os.execvp('rm', ['rm', …])`, `system "rm", "-rf", "/"`,
/// `system qw(rm -rf /)`) are joined into a command line; a name the code
/// set to a literal stands for it; a library's recursive delete of a
/// static path (or of the home through the language's API) reads as `rm
/// -rf` of it.
pub(super) fn shell_strings(code: &str) -> Vec<String> {
    let s = Src {
        c: code.chars().collect(),
    };
    let vars = assignments(&s);
    let n = s.c.len();
    let c = &s.c;
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        // Backquotes (Ruby, Perl, PHP) and %x{…} / qx{…}.
        if c[i] == '`' {
            if let Some((t, j)) = s.string(i) {
                out.push(t);
                i = j;
                continue;
            }
        }
        if matches!(c[i], '%' | 'q') && i + 2 < n && c[i + 1] == 'x' {
            let open = c[i + 2];
            let close = match open {
                '{' => Some('}'),
                '(' => Some(')'),
                '[' => Some(']'),
                '<' => Some('>'),
                o if !o.is_alphanumeric() && !o.is_whitespace() => Some(o),
                _ => None,
            };
            if let Some(close) = close {
                if let Some(end) = c[i + 3..].iter().position(|&x| x == close) {
                    out.push(c[i + 3..i + 3 + end].iter().collect());
                    i = i + 4 + end;
                    continue;
                }
            }
        }
        // awk: `print … | "cmd"` runs cmd with the printed text as its
        // input (a shell reads it as its program); `"cmd" | getline`
        // runs cmd.
        if c[i] == '|' && c.get(i + 1) != Some(&'|') && (i == 0 || c[i - 1] != '|') {
            // gawk's two-way pipe `print … |& "cmd"`.
            let k = s.ws(if c.get(i + 1) == Some(&'&') {
                i + 2
            } else {
                i + 1
            });
            if s.ident(k).is_none_or(|(w, _)| w != "getline") {
                for (v, _) in s.value(k, &vars) {
                    let cmd = v.text();
                    if names_shell(&cmd) {
                        out.extend(printed_before(&s, i, &vars));
                    }
                    out.push(cmd);
                }
            }
        }
        if matches!(c[i], '"' | '\'') {
            if let Some((t, e)) = s.string(i) {
                let k = s.ws(e);
                if s.at(k) == Some('|') && s.at(k + 1) != Some('|') {
                    let g = s.ws(k + 1);
                    if s.ident(g).is_some_and(|(w, _)| w == "getline") {
                        out.push(t);
                    }
                }
            }
        }
        if c[i].is_ascii_alphabetic() || c[i] == '_' {
            let start = i;
            while i < n && Src::is_ident_char(c[i]) {
                i += 1;
            }
            let name: String = c[start..i].iter().collect();
            let j = s.ws(i);
            // `cmd | getline` with cmd set to a literal.
            if s.at(j) == Some('|') && s.at(j + 1) != Some('|') {
                let g = s.ws(j + 1);
                if s.ident(g).is_some_and(|(w, _)| w == "getline") {
                    for (n2, v) in &vars {
                        if *n2 == name {
                            out.push(v.text());
                        }
                    }
                }
            }
            // AppleScript `do shell script "…"`.
            if name.eq_ignore_ascii_case("do") {
                let a = s.ws(i);
                let b = s.ident(a).filter(|(w, _)| w.eq_ignore_ascii_case("shell"));
                if let Some((_, e1)) = b {
                    let a2 = s.ws(e1);
                    if let Some((_, e2)) = s
                        .ident(a2)
                        .filter(|(w, _)| w.eq_ignore_ascii_case("script"))
                    {
                        for (v, _) in s.value(s.ws(e2), &vars) {
                            out.push(v.text());
                        }
                    }
                }
                continue;
            }
            // Perl's pipe open: `open(F, "rm -rf / |")`, `open F, "| sh"`.
            if name == "open" {
                let k = s.ws(if s.at(j) == Some('(') { j + 1 } else { j });
                if let Some((vals, _)) = s.values(k, &vars).or_else(|| {
                    // A handle first (`F`, `my $fh`): the values after it.
                    let comma = s.arg_end(k);
                    (s.at(comma) == Some(','))
                        .then(|| s.values(comma + 1, &vars))
                        .flatten()
                }) {
                    for v in vals {
                        if let Val::Lit(t) = v {
                            let t = t.trim();
                            if let Some(cmd) = t.strip_suffix('|').or_else(|| t.strip_prefix('|')) {
                                if !cmd.trim().is_empty() && cmd.trim() != "-" {
                                    out.push(cmd.trim().to_string());
                                }
                            }
                        }
                    }
                }
                continue;
            }
            let deletes = DELETES.contains(&name.as_str());
            let calls = CALLS.contains(&name.as_str()) || MODE_FIRST_CALLS.contains(&name.as_str());
            if !(deletes || calls) {
                continue;
            }
            if s.at(j) != Some('(') {
                // Perl/Ruby without parentheses: `system "…"`, `exec "rm",
                // "-rf", "/"`, `system qw(rm -rf /)`, `system $cmd`.
                // `rmtree "/"` (Perl), `FileUtils.rm_rf "/"` (Ruby).
                if deletes && j > i {
                    for (v, _) in s.value(j, &vars) {
                        out.push(format!("rm -rf -- {}", v.word()));
                    }
                    continue;
                }
                let bare = BARE_CALLS.contains(&name.as_str()) && j > i;
                if bare {
                    if let Some((words, e)) = s.qw(j) {
                        out.push(argv_line(&words));
                        i = e;
                    } else if let Some((vals, _)) = s.values(j, &vars) {
                        push_call(&mut out, &name, &vals, None);
                    }
                }
                continue;
            }
            let mut k = s.ws(j + 1);
            if MODE_FIRST_CALLS.contains(&name.as_str()) {
                let comma = s.arg_end(k);
                if s.at(comma) != Some(',') {
                    continue;
                }
                k = s.ws(comma + 1);
            }
            if deletes {
                // A recursive delete of a known path: `rm -rf` of it.
                for (v, _) in s.value(k, &vars) {
                    out.push(format!("rm -rf -- {}", v.word()));
                }
                continue;
            }
            if let Some((list, _)) = s.list(k, &vars).or_else(|| s.object_list(k, &vars)) {
                // `subprocess.run(["rm", "-rf", "/"])`, `Deno.run({ cmd:
                // ["rm", …] })`: an argv.
                if !list.is_empty() {
                    out.push(argv_line(&list));
                }
                continue;
            }
            for (first, e) in s.value(k, &vars) {
                let after = s.ws(e);
                let more = if s.at(after) == Some(',') {
                    let f = s.ws(after + 1);
                    s.list(f, &vars)
                        .or_else(|| s.object_list(f, &vars))
                        .map(|(l, _)| (l, true))
                        .or_else(|| s.values(f, &vars).map(|(v, _)| (v, false)))
                } else {
                    None
                };
                push_call(&mut out, &name, std::slice::from_ref(&first), more);
            }
            continue;
        }
        i += 1;
    }
    out
}

/// The shell commands of a line of vim's ex commands: `!CMD`, `RANGE!CMD`
/// (a filter), `r !CMD`, `w !CMD`, after modifiers (`silent!`,
/// `noautocmd`…) and across `|` (which `!` takes as part of its command);
/// `exe "…"` read again; the strings `system()`, `systemlist()`,
/// `job_start()` run; `delete(PATH, "rf")` as `rm -rf PATH`.
pub(super) fn vim_commands(cmd: &str) -> Vec<String> {
    vim_commands_depth(cmd, 0)
}

fn vim_commands_depth(cmd: &str, depth: usize) -> Vec<String> {
    const MODIFIERS: &[&str] = &[
        "silent!",
        "silent",
        "sil!",
        "sil",
        "noautocmd",
        "noa",
        "keepalt",
        "keepjumps",
        "keepmarks",
        "keeppatterns",
        "lockmarks",
        "unsilent",
        "verbose",
        "vertical",
        "vert",
        "topleft",
        "botright",
        "aboveleft",
        "belowright",
        "tab",
        "hide",
        "confirm",
        "browse",
        "sandbox",
        "legacy",
        "vim9cmd",
    ];
    let mut out = shell_strings(cmd);
    // `delete(PATH, "rf")`.
    let mut rest = cmd;
    while let Some(at) = rest.find("delete(") {
        rest = &rest[at + "delete(".len()..];
        let args: Vec<&str> = rest.split(')').next().unwrap_or("").split(',').collect();
        if let [path, flags, ..] = args.as_slice() {
            let unq = |t: &str| t.trim().trim_matches(['"', '\'']).to_string();
            if unq(flags).contains("rf") {
                out.push(format!("rm -rf -- {}", Val::Lit(unq(path)).word()));
            }
        }
    }
    let mut line = cmd;
    while !line.is_empty() {
        let mut t = line.trim_start_matches([':', ' ', '\t']);
        loop {
            let before = t;
            for m in MODIFIERS {
                if let Some(r) = t.strip_prefix(m) {
                    if r.is_empty() || r.starts_with([' ', '\t', '!', '|']) {
                        t = r.trim_start_matches([' ', '\t']);
                    }
                }
            }
            if t == before {
                break;
            }
        }
        // A range before the command (`%`, `.,$`, `'<,'>`, `1,5`).
        let t = t.trim_start_matches(|c: char| c.is_ascii_digit() || "%.$,;+-'<>".contains(c));
        if let Some(r) = t.strip_prefix("execute").or_else(|| t.strip_prefix("exe")) {
            if depth < 3 {
                let body = r.trim();
                let inner = body.trim_matches(['"', '\'']);
                out.extend(vim_commands_depth(inner, depth + 1));
            }
        }
        let mut t2 = t;
        for prefix in ["read", "r", "write", "w!", "w"] {
            if let Some(r) = t.strip_prefix(prefix) {
                if r.trim_start().starts_with('!') {
                    t2 = r.trim_start();
                    break;
                }
            }
        }
        if let Some(r) = t2.strip_prefix('!') {
            out.push(r.to_string());
            break;
        }
        // The next command after an unescaped `|`.
        match t.find('|') {
            Some(at) if at == 0 || !t[..at].ends_with('\\') => line = &t[at + 1..],
            _ => break,
        }
    }
    out
}

/// The command strings of Emacs Lisp's `(shell-command "…")` family.
pub(super) fn lisp_commands(code: &str) -> Vec<String> {
    const CALLS: &[&str] = &[
        "(shell-command-to-string",
        "(shell-command",
        "(async-shell-command",
        "(call-process-shell-command",
        "(process-lines-ignore-status",
    ];
    let mut out = Vec::new();
    for call in CALLS {
        for (i, _) in code.match_indices(call) {
            let rest = &code[i + call.len()..];
            let rest = rest.trim_start();
            if let Some(body) = rest.strip_prefix('"') {
                let mut s = String::new();
                let mut chars = body.chars();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => s.extend(chars.next()),
                        '"' => break,
                        c => s.push(c),
                    }
                }
                out.push(s);
            }
        }
    }
    // `(call-process "rm" nil nil nil "-rf" "/")`: the program, then its
    // arguments after INFILE, BUFFER and DISPLAY; `(delete-directory "~"
    // t)`: a recursive delete.
    let strings = |t: &str| -> Vec<String> {
        t.split('"')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    for (i, _) in code.match_indices("(call-process ") {
        let form = code[i..].split(')').next().unwrap_or("");
        let words: Vec<&str> = form.split_whitespace().skip(1).collect();
        if words.len() >= 4 && words[0].starts_with('"') {
            let prog = Val::Lit(words[0].trim_matches('"').to_string());
            let args = strings(&words[4..].join(" ")).into_iter().map(Val::Lit);
            out.push(argv_line(
                &std::iter::once(prog).chain(args).collect::<Vec<_>>(),
            ));
        }
    }
    for (i, _) in code.match_indices("(delete-directory ") {
        let form = code[i..].split(')').next().unwrap_or("");
        if let (Some(dir), true) = (strings(form).first(), form.split_whitespace().count() >= 3) {
            let val = match dir.strip_prefix('~') {
                Some(r) if r.is_empty() || r.starts_with('/') => Val::Home(r.to_string()),
                _ => Val::Lit(dir.clone()),
            };
            out.push(format!("rm -rf -- {}", val.word()));
        }
    }
    out
}

/// The command lines literal Tcl code runs (`tclsh`, `wish`, `expect`):
/// `exec WORDS…` and expect's `spawn WORDS…` run an argv (`|` between
/// words starts the next command of a pipeline; a redirection word ends
/// it), expect's `system WORDS…` hands the words, joined, to a shell. Only
/// words the gate can read are taken: braced, or quoted or bare without
/// `$`, `[` or `\`; a command with any other word is left out.
pub(super) fn tcl_commands(code: &str) -> Vec<String> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut at_start = true;
    while i < c.len() {
        let ch = c[i];
        if matches!(ch, '\n' | ';' | '[' | '{' | '}' | ']') {
            at_start = true;
            i += 1;
            continue;
        }
        if ch == ' ' || ch == '\t' {
            i += 1;
            continue;
        }
        if !at_start || !ch.is_ascii_alphabetic() {
            at_start = false;
            i += 1;
            continue;
        }
        at_start = false;
        let start = i;
        while i < c.len() && c[i].is_ascii_alphanumeric() {
            i += 1;
        }
        let name: String = c[start..i].iter().collect();
        if !matches!(name.as_str(), "exec" | "spawn" | "system")
            || !c.get(i).is_some_and(|&x| x == ' ' || x == '\t')
        {
            continue;
        }
        let (words, end) = tcl_words(&c, i);
        i = end;
        let Some(words) = words else { continue };
        if name == "system" {
            out.push(words.join(" "));
            continue;
        }
        let mut line: Vec<String> = Vec::new();
        let mut opts = true;
        for w in words {
            if opts && w.starts_with('-') {
                if w == "--" {
                    opts = false;
                }
                continue;
            }
            opts = false;
            if w == "|" || w == "|&" {
                if !line.is_empty() {
                    out.push(std::mem::take(&mut line).join(" "));
                }
                continue;
            }
            if w.starts_with(['<', '>']) || w.starts_with("2>") {
                break;
            }
            line.push(quote(&w));
        }
        if !line.is_empty() {
            out.push(line.join(" "));
        }
    }
    out
}

/// The shell command lines (and Python code's) one gdb command hands on:
/// `shell CMD` (`she`, `shel`), `!CMD`, `pipe GDBCMD | CMD` and `| GDBCMD
/// | CMD` (the text after the last `|`), `python CODE` (`py`, `pi`,
/// `python-interactive`) read as Python.
pub(super) fn gdb_commands(text: &str) -> Vec<String> {
    let t = text.trim_start();
    if let Some(rest) = t.strip_prefix('!') {
        return vec![rest.to_string()];
    }
    if t.starts_with('|') {
        return t
            .rsplit('|')
            .next()
            .map(str::to_string)
            .into_iter()
            .collect();
    }
    let (word, rest) = t.split_once([' ', '\t']).unwrap_or((t, ""));
    match word {
        "she" | "shel" | "shell" => vec![rest.to_string()],
        // `eval "shell …"`: the string is read as a gdb command.
        "eval" => {
            let inner = rest.trim().trim_matches('"');
            if inner == rest.trim() {
                Vec::new()
            } else {
                gdb_commands(inner)
            }
        }
        "pipe" => rest
            .rsplit('|')
            .next()
            .map(str::to_string)
            .into_iter()
            .collect(),
        "py" | "pyt" | "pyth" | "pytho" | "python" | "pi" | "python-interactive" => {
            shell_strings(rest)
        }
        _ => Vec::new(),
    }
}

/// The words of one Tcl command from `i` to its end (a line break, `;`
/// `]` or the `}` closing a body, outside braces and quotes); `None` when one of them is not
/// readable (a substitution, an escape, an unbalanced brace).
fn tcl_words(c: &[char], mut i: usize) -> (Option<Vec<String>>, usize) {
    let mut words = Vec::new();
    let mut ok = true;
    loop {
        while i < c.len() && matches!(c[i], ' ' | '\t') {
            i += 1;
        }
        match c.get(i) {
            None | Some('\n' | ';' | ']' | '}') => break,
            Some('{') => {
                let mut depth = 0usize;
                let mut j = i;
                let mut end = None;
                while j < c.len() {
                    match c[j] {
                        '\\' => ok = false,
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = Some(j);
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                let Some(e) = end else {
                    return (None, c.len());
                };
                words.push(c[i + 1..e].iter().collect());
                i = e + 1;
            }
            Some('"') => {
                let Some(len) = c[i + 1..].iter().position(|&x| x == '"') else {
                    return (None, c.len());
                };
                let w: String = c[i + 1..i + 1 + len].iter().collect();
                ok &= !w.contains(['$', '[', '\\']);
                words.push(w);
                i += len + 2;
            }
            Some(_) => {
                let start = i;
                while i < c.len() && !matches!(c[i], ' ' | '\t' | '\n' | ';' | ']' | '}') {
                    i += 1;
                }
                let w: String = c[start..i].iter().collect();
                ok &= !w.contains(['$', '[', '\\', '{', '"']);
                words.push(w);
            }
        }
    }
    (ok.then_some(words), i)
}

/// Whether program text reads its own command-line arguments (Python's
/// `sys.argv`, Perl's `@ARGV`/`$ARGV[…]`, Ruby's and awk's `ARGV`, Node's
/// `process.argv`, PHP's `$argv`, R's `commandArgs`, Lua's `arg[…]`).
pub(super) fn reads_own_argv(code: &str) -> bool {
    const ARGV: &[&str] = &[
        "sys.argv",
        "ARGV",
        "process.argv",
        "$argv",
        "commandArgs",
        "Deno.args",
        "Bun.argv",
        "arg[",
        "$*",
    ];
    // …and hands something to a command (printing its arguments is not
    // running them: rt27 F7).
    const RUNS: &[&str] = &[
        "system",
        "exec",
        "spawn",
        "popen",
        "run",
        "call",
        "Popen",
        "check_output",
        "`",
        "%x",
        "qx",
        "|",
        "Command",
        "shell",
    ];
    ARGV.iter().any(|m| code.contains(m)) && RUNS.iter().any(|m| code.contains(m))
}

/// What a call given `first` (and maybe more arguments: a list, or more
/// values) runs: one string alone is a shell command line; with more
/// values it is an argv.
fn push_call(out: &mut Vec<String>, name: &str, first: &[Val], more: Option<(Vec<Val>, bool)>) {
    let argv0 = ARGV0_CALLS.contains(&name);
    match (first, more) {
        ([one], None) => out.push(one.text()),
        (vals, None) => {
            // Several values (Perl/Ruby `system "rm", "-rf", "/"`).
            let words: Vec<Val> = if argv0 {
                vals.iter()
                    .take(1)
                    .chain(vals.iter().skip(2))
                    .cloned()
                    .collect()
            } else {
                vals.to_vec()
            };
            out.push(argv_line(&words));
        }
        (vals, Some((rest, _list))) => {
            // `spawnSync('rm', ['-rf', '/'])`; `os.execvp('rm', ['rm', …])`
            // and `os.execl('/bin/rm', 'rm', …)` repeat the name.
            let skip = usize::from(argv0);
            let mut words: Vec<Val> = vals.to_vec();
            words.extend(rest.into_iter().skip(skip));
            out.push(argv_line(&words));
            // A lone string is also what `shell: true` runs.
            if let [one] = vals {
                out.push(one.text());
            }
        }
    }
}

/// The strings an awk `print`/`printf` writes into the pipe at `bar`: each
/// literal, and all of them joined by spaces (the output separator).
fn printed_before(s: &Src, bar: usize, vars: &[(String, Val)]) -> Vec<String> {
    // The statement: back to the last `print`/`printf` before the pipe.
    let text: String = s.c[..bar].iter().collect();
    let Some(p) = text.rfind("print") else {
        return Vec::new();
    };
    let mut j = p + "print".len();
    if s.at(j) == Some('f') {
        j += 1;
    }
    let mut lits = Vec::new();
    while j < bar {
        if matches!(s.c[j], '"' | '\'') {
            if let Some((t, e)) = s.string(j) {
                lits.push(t);
                j = e;
                continue;
            }
        }
        if let Some((name, e)) = s.ident(j) {
            for (n2, v) in vars {
                if *n2 == name {
                    lits.push(v.text());
                }
            }
            j = e;
            continue;
        }
        j += 1;
    }
    let mut out = lits.clone();
    if lits.len() > 1 {
        out.push(lits.join(" "));
    }
    out
}

// ---------------------------------------------------------------------
// Fork bombs.

/// Tokens of code for the fork-bomb shapes: names (with `.` and `::`),
/// numbers, single punctuation; string literals dropped; line breaks as
/// `;`; lowercased.
fn tokens(code: &str) -> Vec<String> {
    let s = Src {
        c: code.chars().collect(),
    };
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(ch) = s.at(i) {
        if ch == '\n' {
            out.push(";".to_string());
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if matches!(ch, '"' | '\'') {
            match s.string(i) {
                Some((_, e)) => {
                    out.push("\"\"".to_string());
                    i = e;
                }
                None => i += 1,
            }
        } else if Src::is_ident_char(ch) {
            let st = i;
            while let Some(x) = s.at(i) {
                let joins = (x == '.' && s.at(i + 1).is_some_and(Src::is_ident_char))
                    || (x == ':' && s.at(i + 1) == Some(':'));
                if Src::is_ident_char(x) {
                    i += 1;
                } else if joins {
                    i += if x == ':' { 2 } else { 1 };
                } else {
                    break;
                }
            }
            out.push(s.c[st..i].iter().collect::<String>().to_ascii_lowercase());
        } else {
            out.push(ch.to_string());
            i += 1;
        }
    }
    out
}

const FORKS: &[&str] = &[
    "fork",
    "os.fork",
    "posix.fork",
    "posix::fork",
    "process.fork",
    "kernel.fork",
    "pcntl_fork",
];

/// A fork call at `k` (`fork`, `os.fork()`, `fork { … }` is not one:
/// the block is more code); the index after it.
fn fork_at(t: &[String], k: usize) -> Option<usize> {
    let name = t.get(k)?;
    if !FORKS.contains(&name.as_str()) {
        return None;
    }
    if t.get(k + 1).map(String::as_str) == Some("(")
        && t.get(k + 2).map(String::as_str) == Some(")")
    {
        return Some(k + 3);
    }
    Some(k + 1)
}

/// Words of an always-true or always-false condition (optionally in
/// parentheses); the index after it.
fn constant(t: &[String], k: usize, truth: bool) -> Option<usize> {
    let ok = |w: &str| {
        if truth {
            matches!(w, "1" | "true")
        } else {
            matches!(w, "0" | "false" | "nil")
        }
    };
    match t.get(k).map(String::as_str) {
        Some("(") => (t.get(k + 1).is_some_and(|w| ok(w))
            && t.get(k + 2).map(String::as_str) == Some(")"))
        .then_some(k + 3),
        Some(w) if ok(w) => Some(k + 1),
        _ => None,
    }
}

/// An iterator without end (`iter(int, 1)`, `itertools.count()`); the
/// index after it.
fn endless(t: &[String], k: usize) -> Option<usize> {
    let seq = |words: &[&str]| -> Option<usize> {
        words
            .iter()
            .enumerate()
            .all(|(d, w)| t.get(k + d).is_some_and(|x| x == w))
            .then_some(k + words.len())
    };
    seq(&["iter", "(", "int", ",", "1", ")"])
        .or_else(|| seq(&["itertools.count", "(", ")"]))
        .or_else(|| seq(&["count", "(", ")"]))
        .or_else(|| seq(&["itertools.repeat", "(", "0", ")"]))
}

/// A loop that never ends at `k`; the index of its body.
fn endless_loop(t: &[String], k: usize) -> Option<usize> {
    let w = |d: usize| t.get(k + d).map(String::as_str);
    match w(0)? {
        // Ruby `loop { … }`, `loop do … end`.
        "loop" if matches!(w(1), Some("{" | "do")) => Some(k + 2),
        "while" | "until" => {
            let after = constant(t, k + 1, w(0) == Some("while"))?;
            match t.get(after).map(String::as_str) {
                Some("{" | ":" | "do" | ";") => Some(after + 1),
                // `while (1) fork();`
                _ if w(1) == Some("(") => Some(after),
                _ => None,
            }
        }
        // `for (;;) …`
        "for"
            if w(1) == Some("(") && w(2) == Some(";") && w(3) == Some(";") && w(4) == Some(")") =>
        {
            Some(if w(5) == Some("{") { k + 6 } else { k + 5 })
        }
        // Python `for _ in iter(int, 1):`
        "for" if w(2) == Some("in") => {
            let after = endless(t, k + 3)?;
            (t.get(after).map(String::as_str) == Some(":")).then_some(after + 1)
        }
        _ => None,
    }
}

/// Whether literal code forks without bound, in a clear shape: Perl/Ruby
/// `fork while fork` / `fork while 1` / `1 while fork`, a loop that never
/// ends whose body only forks (`loop { fork }`, `while True: os.fork()`,
/// `while(1){fork}`, `for(;;) fork();`), Perl `{ fork; redo }`, or a
/// comprehension over an endless iterator that forks (`[os.fork() for _ in
/// iter(int, 1)]`). A loop doing anything else (a forking server) is not
/// one.
pub(super) fn forks_without_bound(code: &str) -> bool {
    let t = tokens(code);
    for k in 0..t.len() {
        // A loop whose condition forks (`… while fork`, `while (fork)`):
        // the parent forks until the system cannot.
        if t[k] == "while" {
            let c = if t.get(k + 1).map(String::as_str) == Some("(") {
                k + 2
            } else {
                k + 1
            };
            if fork_at(&t, c).is_some() {
                return true;
            }
        }
        if let Some(after) = fork_at(&t, k) {
            let w = |d: usize| t.get(after + d).map(String::as_str);
            // `fork while 1`, `fork until 0`.
            match w(0) {
                Some("while") if constant(&t, after + 1, true).is_some() => return true,
                Some("until") if constant(&t, after + 1, false).is_some() => return true,
                // `{ fork; redo }`
                Some(";") if w(1) == Some("redo") => return true,
                // `[os.fork() for _ in iter(int, 1)]`
                Some("for") if w(2) == Some("in") && endless(&t, after + 3).is_some() => {
                    return true
                }
                _ => {}
            }
        }
        if let Some(body) = endless_loop(&t, k) {
            let mut j = body;
            let mut forks = 0;
            loop {
                if t.get(j).map(String::as_str) == Some(";") {
                    j += 1;
                } else if let Some(e) = fork_at(&t, j) {
                    forks += 1;
                    j = e;
                } else {
                    break;
                }
            }
            let closes = matches!(t.get(j).map(String::as_str), None | Some("}" | "end"));
            if forks > 0 && closes {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(code: &str, want: &str) {
        let got = shell_strings(code);
        assert!(got.iter().any(|g| g == want), "{code}: {got:?}");
    }

    #[test]
    fn calls_and_lists() {
        has("import os; os.system('rm -rf /')", "rm -rf /");
        has(
            "require('child_process').spawnSync('rm', ['-rf', '/'])",
            "'rm' '-rf' '/'",
        );
        has(
            "require('child_process').execFileSync('rm', ['-rf','/'])",
            "'rm' '-rf' '/'",
        );
        has(
            "require('child_process').spawn('sh', ['-c', 'rm -rf /'])",
            "'sh' '-c' 'rm -rf /'",
        );
        has(
            "import os; os.execvp('rm', ['rm','-rf','/'])",
            "'rm' '-rf' '/'",
        );
        has(
            "import os; os.execl('/bin/rm', 'rm', '-rf', '/')",
            "'/bin/rm' '-rf' '/'",
        );
        has("system(\"rm\", \"-rf\", \"/\")", "'rm' '-rf' '/'");
        has("subprocess.call(['rm','-rf','/'])", "'rm' '-rf' '/'");
        has("subprocess.run('ls', shell=True)", "ls");
        has("os.execute(\"rm -rf /\")", "rm -rf /");
        has("io.popen('rm -rf /')", "rm -rf /");
    }

    #[test]
    fn bare_calls() {
        has("exec \"rm -rf /\"", "rm -rf /");
        has("system \"rm -rf /\"", "rm -rf /");
        has("system qw(rm -rf /)", "'rm' '-rf' '/'");
        has("system \"rm\", \"-rf\", \"/\"", "'rm' '-rf' '/'");
        has("my $c = 'rm -rf /'; system $c", "rm -rf /");
    }

    #[test]
    fn escapes_and_names() {
        has("BEGIN { system(\"rm\\x20-rf\\x20/\") }", "rm -rf /");
        has("BEGIN { system(\"rm\\040-rf\\040/\") }", "rm -rf /");
        has("console.log(1); execSync('rm\\u0020-rf /')", "rm -rf /");
        has("BEGIN { cmd = \"rm -rf /\"; system(cmd) }", "rm -rf /");
        has("BEGIN { print \"rm -rf /\" | \"sh\" }", "rm -rf /");
        has("BEGIN { \"rm -rf /\" | getline }", "rm -rf /");
        has("BEGIN { c = \"rm -rf /\"; c | getline x }", "rm -rf /");
        has("do shell script \"rm -rf ~\"", "rm -rf ~");
    }

    #[test]
    fn tcl_exec_and_gdb_shell() {
        assert_eq!(tcl_commands("exec rm -rf /"), vec!["'rm' '-rf' '/'"]);
        assert_eq!(
            tcl_commands("puts hi; if {1} {exec -keepnewline -- ls {a b} | wc -l}"),
            vec!["'ls' 'a b'", "'wc' '-l'"]
        );
        // Substitutions are not read; neither are redirections' targets.
        assert!(tcl_commands("exec rm -rf $d").is_empty());
        assert_eq!(tcl_commands("exec ls > out"), vec!["'ls'"]);
        assert_eq!(tcl_commands("system rm -rf /"), vec!["rm -rf /"]);
        assert!(tcl_commands("set x [string length exec]").is_empty());
        assert_eq!(gdb_commands("shell rm -rf /"), vec!["rm -rf /"]);
        assert_eq!(gdb_commands("!id"), vec!["id"]);
        assert_eq!(gdb_commands("| bt | sh -c 'x'"), vec![" sh -c 'x'"]);
        assert!(gdb_commands("run").is_empty());
        assert!(gdb_commands("show version").is_empty());
    }

    #[test]
    fn deletes() {
        has("import shutil; shutil.rmtree('/')", "rm -rf -- '/'");
        has(
            "require('fs').rmSync(require('os').homedir(),{recursive:true,force:true})",
            "rm -rf -- ~",
        );
        has(
            "import shutil,os; shutil.rmtree(os.path.expanduser('~'))",
            "rm -rf -- ~",
        );
        has(
            "import pathlib, shutil; shutil.rmtree(pathlib.Path.home())",
            "rm -rf -- ~",
        );
        has("FileUtils.rm_rf(Dir.home)", "rm -rf -- ~");
        has("FileUtils.rm_rf(ENV['HOME'])", "rm -rf -- ~");
        has(
            "shutil.rmtree(os.path.expanduser('~/x'))",
            "rm -rf -- ~/'x'",
        );
        has(
            "h = os.path.expanduser('~'); shutil.rmtree(h)",
            "rm -rf -- ~",
        );
        let none = shell_strings("import shutil; shutil.rmtree(os.path.join(os.getcwd(), 'b'))");
        assert!(none.is_empty(), "{none:?}");
        let lit = shell_strings("shutil.rmtree('~')");
        assert_eq!(lit, vec!["rm -rf -- '~'".to_string()]);
    }

    #[test]
    fn fork_bombs() {
        for c in [
            "fork while fork",
            "fork while 1",
            "1 while fork",
            "fork until 0",
            "while(1){fork}",
            "while (1) { fork(); }",
            "{ fork; redo }",
            "loop { fork }",
            "loop do fork end",
            "loop do\n  fork\nend",
            "import os; [os.fork() for _ in iter(int, 1)]",
            "import os\nwhile True: os.fork()",
            "import os\nwhile True:\n    os.fork()",
            "import os\nwhile 1: os.fork()",
            "import os\nfor _ in iter(int, 1): os.fork()",
            "import itertools, os; [os.fork() for _ in itertools.count()]",
            "for(;;) pcntl_fork();",
        ] {
            assert!(forks_without_bound(c), "{c}");
        }
        for c in [
            "fork",
            "my $pid = fork; if ($pid) { wait } else { exit }",
            "import os; os.fork()",
            "import os\nfor _ in range(3): os.fork()",
            "while True:\n    c, _ = s.accept()\n    if os.fork() == 0: handle(c)",
            "loop { fork { work }; Process.wait }",
            "while forking: pass",
            "print('fork while fork')",
            "[os.fork() for _ in range(4)]",
        ] {
            assert!(!forks_without_bound(c), "{c}");
        }
    }
}
