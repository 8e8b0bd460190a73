//! What bash evaluates again, and what a statement changes for the
//! commands after it (SPEC §15.13, §15.14, §15.20):
//! - arithmetic (`$(( ))`, `(( ))`, `let`, `[[ a -eq b ]]`, subscripts,
//!   `${v:off:len}`) evaluates the *values* of variables as expressions, so
//!   an operand must be a literal number or a name this command set to one;
//! - `${!v}`, `${v@P}` and operator words holding `$(` expand text again;
//! - builtins that take a NAME (`test -v`, `printf -v`, `read`, `declare`…)
//!   evaluate a subscript in it;
//! - a statement assignment (`NAME=v;`, `export NAME=v`, `printf -v NAME`,
//!   `read NAME`, `${NAME:=v}`) changes what the later commands of the list
//!   run, as a prefix assignment would.

use super::cwd::Cwd;
use super::envkind::{classify, EnvKind};
use super::walk::Walker;
use crate::syntax::Simple;
use crate::word::{Eval, Word};

/// Names that make the rest of a list complex when a statement sets them.
const STATEMENT_POISON: &[&str] = &["PATH", "HOME", "CDPATH", "IFS", "BASH_ENV", "ENV"];

/// Variables the list set so far (carried with the working directory: a
/// subshell or pipeline element gets a copy that does not leak out).
#[derive(Debug, Clone, Default)]
pub(super) struct Vars {
    /// Names set to a literal number (usable as arithmetic operands).
    pub(super) numeric: Vec<String>,
    /// Other names set by a statement: judged as prefix assignments of
    /// every later command.
    pub(super) set: Vec<String>,
    /// A name that makes the rest of the list complex.
    pub(super) poison: Option<String>,
    /// Names declared integer (`declare -i`): a later assignment to one is
    /// evaluated as arithmetic.
    pub(super) integer: Vec<String>,
    /// Values known statically (`H=$HOME;`, `T=/;`, `for d in / ~`): every
    /// value a name may have here. Only hard deny reads them (the
    /// commands that use them stay what they were).
    pub(super) values: Vec<Known>,
    /// The last argument of the command before (`$_` of the next one),
    /// when known; `Some(None)`: unknown.
    pub(super) last_arg: Option<Option<String>>,
}

/// A value a name was given by a statement of the same call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Known {
    pub(super) name: String,
    pub(super) value: String,
    /// A `for` word that bash globs (`for d in /*`): the value is one of
    /// its matches.
    pub(super) glob: bool,
}

impl Vars {
    /// Whether the call itself set (or unset, or looped over) `name`.
    pub(super) fn set_by_call(&self, name: &str) -> bool {
        self.values.iter().any(|k| k.name == name) || self.set.iter().any(|n| n == name)
    }

    /// The values `name` may have, when all are known.
    pub(super) fn known(&self, name: &str) -> Vec<&Known> {
        self.values.iter().filter(|k| k.name == name).collect()
    }

    /// `name` now has exactly these values.
    pub(super) fn set_known(&mut self, name: &str, values: Vec<(String, bool)>) {
        self.values.retain(|k| k.name != name);
        for (value, glob) in values {
            self.values.push(Known {
                name: name.to_string(),
                value,
                glob,
            });
        }
    }

    /// A shell's own parameter (`$_`, `$1`…): its value only, not an
    /// assignment of the environment of later commands.
    pub(super) fn set_param(&mut self, name: &str, value: Option<String>) {
        self.values.retain(|k| k.name != name);
        if let Some(value) = value {
            self.values.push(Known {
                name: name.to_string(),
                value,
                glob: false,
            });
        }
    }

    /// At the start of a command: `$_` is what the command before left.
    pub(super) fn take_last_arg(&mut self) {
        if let Some(last) = self.last_arg.take() {
            self.set_param("_", last);
        }
    }

    pub(super) fn assign(&mut self, name: &str, value: Option<&str>) {
        // Whatever it held before is gone; a caller that knows the new
        // value records it after.
        self.values.retain(|k| k.name != name);
        let numeric = value.is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()));
        self.numeric.retain(|n| n != name);
        if numeric {
            self.numeric.push(name.to_string());
        }
        if STATEMENT_POISON.contains(&name) || classify(name, &[]) == EnvKind::CodeSelecting {
            if self.poison.is_none() {
                self.poison = Some(name.to_string());
            }
        } else if !self.set.iter().any(|n| n == name) {
            self.set.push(name.to_string());
        }
    }
}

/// An arithmetic expression whose every operand is a literal number or a
/// name set to one (`numeric`).
pub(super) fn arith_ok(text: &str, numeric: &[String]) -> bool {
    let c: Vec<char> = text.chars().collect();
    let n = c.len();
    let mut i = 0;
    let ident = |i: &mut usize| -> String {
        let s = *i;
        while *i < n && (c[*i].is_ascii_alphanumeric() || c[*i] == '_') {
            *i += 1;
        }
        c[s..*i].iter().collect()
    };
    while i < n {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch.is_ascii_digit() {
            // 42, 0x2A, 8#52, 1_000 is not bash but harmless.
            while i < n && (c[i].is_ascii_alphanumeric() || c[i] == '#' || c[i] == '_') {
                i += 1;
            }
        } else if ch.is_ascii_alphabetic() || ch == '_' {
            let name = ident(&mut i);
            if !numeric.contains(&name) || (i < n && c[i] == '[') {
                return false;
            }
        } else if ch == '$' {
            i += 1;
            let braced = i < n && c[i] == '{';
            if braced {
                i += 1;
            }
            if i >= n || !(c[i].is_ascii_alphabetic() || c[i] == '_') {
                return false; // $1, $_, $@, $(…), $((…)): values from anywhere
            }
            let name = ident(&mut i);
            if braced {
                if i >= n || c[i] != '}' {
                    return false;
                }
                i += 1;
            }
            if !numeric.contains(&name) {
                return false;
            }
        } else if "+-*/%<>=!&|^~?:(),".contains(ch) {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

/// The value of a word when it is known here: static text, the home, and
/// names with one known value (`T=$H/x` after `H=$HOME`).
pub(super) fn known_value(w: &Word, cwd: &Cwd, home: &str) -> Option<String> {
    if w.brace || w.unparsed || w.proc_subst {
        return None;
    }
    let mut out = String::new();
    for (i, s) in w.segs.iter().enumerate() {
        match s {
            crate::word::Seg::Lit { text, .. } => out.push_str(text),
            crate::word::Seg::Home => out.push_str(home),
            crate::word::Seg::Dynamic => {
                let p = w.params.iter().find(|p| p.seg == i)?;
                let v = param_values_of(p, cwd, home);
                match v.as_slice() {
                    [(one, false)] => out.push_str(one),
                    _ => return None,
                }
            }
        }
    }
    Some(out)
}

/// [`param_values`] of a parameter as written: none (unknown) when it takes
/// a default for an empty value (`${x:-…}`) and a value may be empty.
pub(super) fn param_values_of(
    p: &crate::word::Param,
    cwd: &Cwd,
    home: &str,
) -> Vec<(String, bool)> {
    if let Some(v) = p.name.strip_prefix(crate::word::ECHO_SUBST) {
        return vec![(
            if v == "~" {
                home.to_string()
            } else {
                v.to_string()
            },
            false,
        )];
    }
    let v = param_values(&p.name, cwd);
    if p.nonempty && v.iter().any(|(x, _)| x.is_empty()) {
        return Vec::new();
    }
    v
}

/// The values a parameter may have here: a name the call set, or the
/// working directory for `$PWD` and `$(pwd)` when it is known.
pub(super) fn param_values(name: &str, cwd: &Cwd) -> Vec<(String, bool)> {
    if name == "PWD" || name == crate::word::PWD_SUBST {
        if cwd.vars.set_by_call("PWD") {
            // Set by the call itself: its value, if known.
            return cwd
                .vars
                .known("PWD")
                .into_iter()
                .map(|k| (k.value.clone(), k.glob))
                .collect();
        }
        return cwd.dir.iter().map(|d| (d.clone(), false)).collect();
    }
    cwd.vars
        .known(name)
        .into_iter()
        .map(|k| (k.value.clone(), k.glob))
        .collect()
}

/// The subscript of a NAME operand (`a[$(id)]` ⇒ `$(id)`), if any.
fn subscript(name: &str) -> Option<&str> {
    let open = name.find('[')?;
    let close = name.rfind(']')?;
    (close > open).then(|| &name[open + 1..close])
}

/// A NAME operand of a builtin: a plain identifier, or one with a literal
/// subscript.
fn name_ok(w: &Word, numeric: &[String]) -> bool {
    let Some(v) = w.literal() else {
        return false;
    };
    let name = v.split('=').next().unwrap_or("");
    match subscript(name) {
        Some(sub) => matches!(sub, "@" | "*") || arith_ok(sub, numeric),
        None => is_identifier(name),
    }
}

/// `[A-Za-z_][A-Za-z0-9_]*`.
pub(super) fn is_identifier(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Walker<'_> {
    /// What a word makes bash evaluate again.
    pub(super) fn check_evals(&mut self, w: &Word, cwd: &mut Cwd) {
        for e in &w.evals {
            match e {
                Eval::Arith(text) => {
                    if !arith_ok(text, &cwd.vars.numeric) {
                        self.reason("arithmetic_evaluation");
                    }
                }
                Eval::Indirect => self.reason("indirect_expansion"),
                Eval::Transform => self.reason("transform_expansion"),
                Eval::OperatorSubst => self.reason("hidden_substitution"),
                Eval::Assign(name) => cwd.vars.assign(name, None),
            }
        }
    }

    /// A `[[ … ]]` test: arithmetic operands and variable names.
    pub(super) fn check_test(&mut self, arith: &[Word], names: &[Word], cwd: &Cwd) {
        for w in arith {
            let text = w
                .literal()
                .unwrap_or_else(|| w.raw.trim_matches('"').to_string());
            if !arith_ok(&text, &cwd.vars.numeric) {
                self.reason("arithmetic_evaluation");
            }
        }
        for w in names {
            if !name_ok(w, &cwd.vars.numeric) {
                self.reason("evaluating_builtin");
            }
        }
    }

    /// Builtins that take NAMEs or arithmetic (and the statements they
    /// make); `argv` is unwrapped, `base` its program.
    pub(super) fn check_builtin(&mut self, base: &str, argv: &[Word], cwd: &mut Cwd) {
        let lit = |i: usize| argv.get(i).and_then(Word::literal).unwrap_or_default();
        let mut names: Vec<&Word> = Vec::new();
        // `$_` is the last argument of the command before (rt28b: `: ~;
        // rm -rf "$_"`): this command's own is kept for the next one
        // ([`Vars::take_last_arg`] makes it known there).
        let home = self.env.home.clone();
        let mine = argv
            .last()
            .filter(|w| !w.glob)
            .and_then(|w| known_value(w, cwd, &home));
        cwd.vars.last_arg = Some(mine);
        match base {
            // `set -- a b`: the positional parameters (rt28b: `set -- ~;
            // rm -rf "$1"`).
            "set" if lit(1) == "--" => {
                for (k, name) in crate::word::POSITIONAL.iter().enumerate() {
                    let v = argv
                        .get(k + 2)
                        .filter(|w| !w.glob)
                        .and_then(|w| known_value(w, cwd, &home));
                    cwd.vars.set_param(name, v);
                }
            }
            "test" | "[" => {
                for (i, w) in argv.iter().enumerate() {
                    if matches!(w.lit().as_deref(), Some("-v") | Some("-R")) {
                        if let Some(n) = argv.get(i + 1) {
                            names.push(n);
                        }
                    }
                }
            }
            "printf" => {
                let mut i = 1;
                while i < argv.len() {
                    let v = lit(i);
                    if v == "-v" {
                        if let Some(n) = argv.get(i + 1) {
                            names.push(n);
                            let name = n.literal().unwrap_or_default();
                            cwd.vars.assign(&name, None);
                            // `printf -v x %s WORD` (rt28b), `printf -v x TEXT`.
                            let rest = &argv[(i + 2).min(argv.len())..];
                            let value = match rest {
                                [f, w] if f.lit().as_deref() == Some("%s") && !w.glob => {
                                    known_value(w, cwd, &home)
                                }
                                [f] => f.literal().filter(|t| !t.contains(['%', '\\'])),
                                _ => None,
                            };
                            if let Some(v) = value.filter(|_| is_identifier(&name)) {
                                cwd.vars.set_known(&name, vec![(v, false)]);
                            }
                        }
                        i += 2;
                    } else if let Some(rest) = v.strip_prefix("-v") {
                        names.push(&argv[i]);
                        cwd.vars.assign(rest, None);
                        // `-vNAME`: the name is glued.
                        if !is_identifier(rest) {
                            self.reason("evaluating_builtin");
                        }
                        i += 1;
                    } else if v == "--" || !v.starts_with('-') {
                        break;
                    } else {
                        i += 1;
                    }
                }
                names.retain(|w| !w.lit().is_some_and(|v| v.starts_with("-v")));
            }
            "read" | "mapfile" | "readarray" | "unset" | "declare" | "typeset" | "local"
            | "export" | "readonly" => {
                // Options with a value (read -a/-d/-n/-N/-p/-t/-u, mapfile
                // -d/-n/-O/-s/-u/-C/-c): the value is not a name.
                let with_value: &[&str] = match base {
                    "read" => &["-d", "-n", "-N", "-p", "-t", "-u", "-i"],
                    "mapfile" | "readarray" => &["-d", "-n", "-O", "-s", "-u", "-C", "-c"],
                    _ => &[],
                };
                let mut i = 1;
                let mut opts_done = false;
                // declare -i / -n: values are arithmetic / names, evaluated.
                let attrs: String = argv
                    .iter()
                    .skip(1)
                    .filter_map(Word::literal)
                    .take_while(|v| v.starts_with('-') || v.starts_with('+'))
                    .collect();
                let integer = attrs.contains('i');
                let nameref = attrs.contains('n') && base != "read" && base != "unset";
                // A nameref without a target (`declare -n r`) takes the name
                // a later plain `r=HOME` gives it, and `r=/x` then sets HOME:
                // the list is not followed past one.
                if nameref && matches!(base, "declare" | "typeset" | "local") {
                    self.reason("nameref");
                }
                while i < argv.len() {
                    let w = &argv[i];
                    let v = w.literal().unwrap_or_default();
                    // `declare -a 'x=($(cmd))'`: declare re-reads a compound
                    // or quoted value as an assignment, expansions included.
                    if base != "read" && base != "unset" && !v.starts_with('-') {
                        if let Some((_, value)) = v.split_once('=') {
                            // A compound value `(a b)` is fine when its words are
                            // plain; anything expandable inside is re-read.
                            let compound_inner = value
                                .strip_prefix('(')
                                .and_then(|v| v.strip_suffix(')'))
                                .is_some_and(|inner| {
                                    inner.contains(['(', ')', '[', ']', '{', '\\'])
                                });
                            if value.contains(['$', '`']) || compound_inner {
                                self.reason("evaluating_builtin");
                            }
                            if integer && !arith_ok(value, &cwd.vars.numeric) {
                                self.reason("arithmetic_evaluation");
                            }
                            if nameref {
                                let vw = Word::static_text(value, w.start, false);
                                if !name_ok(&vw, &cwd.vars.numeric) {
                                    self.reason("evaluating_builtin");
                                }
                            }
                        }
                        if integer {
                            let name = v.split('=').next().unwrap_or("").to_string();
                            if !cwd.vars.integer.contains(&name) {
                                cwd.vars.integer.push(name);
                            }
                        }
                    }
                    if !opts_done && v == "--" {
                        opts_done = true;
                    } else if !opts_done && v.starts_with('-') && v.len() > 1 {
                        if with_value.contains(&v.as_str()) {
                            i += 1;
                        }
                        if v == "-a" && base == "read" {
                            if let Some(n) = argv.get(i + 1) {
                                names.push(n);
                                cwd.vars.assign(&n.literal().unwrap_or_default(), None);
                            }
                            i += 1;
                        }
                        if base == "mapfile" || base == "readarray" {
                            // -C callback runs code.
                            if v == "-C" {
                                self.reason("evaluating_builtin");
                            }
                        }
                    } else if !opts_done && base != "read" && v.starts_with('+') {
                        // declare +x NAME
                    } else {
                        names.push(w);
                        if base == "unset" {
                            // Unsetting a name the rest of the list depends
                            // on changes it as setting does (`unset HOME`:
                            // `$HOME/bin/x` is `/bin/x`).
                            // `unset PWD`: `$PWD/etc/x` is `/etc/x`.
                            let name = w.literal().unwrap_or_default();
                            if STATEMENT_POISON.contains(&name.as_str())
                                || matches!(name.as_str(), "PWD" | "OLDPWD")
                            {
                                cwd.vars.assign(&name, None);
                            }
                        } else if attrs.contains('p')
                            && base != "read"
                            && !w.literal().unwrap_or_default().contains('=')
                        {
                            // `declare -p PATH`: prints, assigns nothing.
                        } else {
                            let full = w.literal().unwrap_or_default();
                            let (name, value) = match full.split_once('=') {
                                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                                None => (full.clone(), None),
                            };
                            cwd.vars
                                .assign(name.split('[').next().unwrap_or(""), value.as_deref());
                            // `export T=/`, `local H=$HOME`: a plain value
                            // is known as a statement's is.
                            if attrs.is_empty() && base != "read" {
                                let home = self.env.home.clone();
                                if let Some((n, v)) = known_value(w, cwd, &home).and_then(|t| {
                                    t.split_once('=')
                                        .map(|(n, v)| (n.to_string(), v.to_string()))
                                }) {
                                    // Bash expands a `~` after the `=` of a
                                    // declaration's word (`export x=~`, rt28b).
                                    let v = match v.strip_prefix('~') {
                                        Some(r)
                                            if (r.is_empty() || r.starts_with('/'))
                                                && w.raw.contains("=~") =>
                                        {
                                            format!("{home}{r}")
                                        }
                                        _ => v,
                                    };
                                    if is_identifier(&n) {
                                        cwd.vars.set_known(&n, vec![(v, false)]);
                                    }
                                }
                            }
                        }
                    }
                    i += 1;
                }
            }
            // `getopts OPTSTRING NAME [ARGS]` and `wait -p NAME` assign
            // NAME.
            "getopts" => {
                // `getopts -- OPTSTRING NAME` too.
                let at = if lit(1) == "--" { 3 } else { 2 };
                if let Some(n) = argv.get(at) {
                    names.push(n);
                    cwd.vars.assign(&n.literal().unwrap_or_default(), None);
                }
            }
            "wait" => {
                // Options `-f`, `-n`, `-p NAME` in any cluster, the name
                // glued or not (`-pPATH`, `-np PATH`).
                let mut i = 1;
                while i < argv.len() {
                    let v = lit(i);
                    if v == "--" || !v.starts_with('-') || v.len() < 2 {
                        break;
                    }
                    if let Some(p) = v.find('p') {
                        let glued = &v[p + 1..];
                        if glued.is_empty() {
                            if let Some(n) = argv.get(i + 1) {
                                names.push(n);
                                cwd.vars.assign(&n.literal().unwrap_or_default(), None);
                            }
                            i += 1;
                        } else {
                            cwd.vars.assign(glued, None);
                            if !is_identifier(glued) {
                                self.reason("evaluating_builtin");
                            }
                        }
                    }
                    i += 1;
                }
            }
            "let" => {
                for w in argv.iter().skip(1) {
                    let text = w.literal().unwrap_or_else(|| w.raw.clone());
                    // `let x=5` assigns a literal: allowed; anything else is
                    // an arithmetic operand.
                    let (lhs, rhs) = match text.split_once('=') {
                        Some((l, r)) if is_identifier(l) && !r.starts_with('=') => (Some(l), r),
                        _ => (None, text.as_str()),
                    };
                    if !arith_ok(rhs, &cwd.vars.numeric) {
                        self.reason("arithmetic_evaluation");
                    }
                    if let Some(l) = lhs {
                        cwd.vars.assign(l, Some(rhs));
                    }
                }
            }
            _ => {}
        }
        for n in names {
            if !name_ok(n, &cwd.vars.numeric) {
                self.reason("evaluating_builtin");
            }
        }
    }

    /// A `{NAME}` or `{NAME[SUB]}` word on a command with redirects: bash
    /// may open a descriptor and store its number in NAME (on a builtin
    /// the assignment stays for the rest of the list: `echo {PATH}</dev/null;
    /// ls` runs `./11/ls`), and evaluates SUB as arithmetic, running a
    /// `$( )` in it however it is quoted (rt8: `: {a['$(rm -rf x)']}</dev/null`
    /// ran `rm`). Read as a statement assignment whatever the command; a
    /// subscript must be a literal number or a name set to one.
    pub(super) fn redirect_name_word(&mut self, w: &Word, cwd: &mut Cwd) {
        let literal = w.literal();
        let text = literal.clone().unwrap_or_else(|| w.raw.clone());
        let Some(inner) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) else {
            return;
        };
        let (name, sub) = match inner.split_once('[') {
            Some((n, rest)) => (n, Some(rest.strip_suffix(']').unwrap_or(rest))),
            None => (inner, None),
        };
        if !is_identifier(name) {
            return;
        }
        if literal.is_none() {
            self.reason("evaluating_builtin");
        }
        if let Some(sub) = sub {
            if !arith_ok(sub, &cwd.vars.numeric) {
                self.reason("arithmetic_evaluation");
                // What it runs is still checked for hard deny.
                if sub.contains("$(") || sub.contains('`') {
                    let dir = cwd.dir.clone();
                    self.ungated_text(sub, dir.as_deref(), &super::walk::Ctx::default());
                }
            }
        }
        cwd.vars.assign(name, None);
    }

    /// A statement made only of assignments (`NAME=v;`): what it sets
    /// applies to the rest of the list.
    pub(super) fn statement_assignments(&mut self, s: &Simple, cwd: &mut Cwd) {
        for a in &s.assignments {
            self.out.statement_names.push(a.name.clone());
            self.out
                .statement_values
                .extend(a.values.iter().map(|w| w.raw.clone()));
            let value = match a.values.as_slice() {
                [w] => w.literal(),
                _ => None,
            };
            if a.index.is_some() {
                if let Some(i) = &a.index {
                    let t = i.literal().unwrap_or_else(|| i.raw.clone());
                    if !arith_ok(&t, &cwd.vars.numeric) {
                        self.reason("arithmetic_evaluation");
                    }
                }
                // `HOME[0]=/x` sets `$HOME` (element 0 is the scalar);
                // `PATH[0]=…` makes PATH an array, and bash then finds
                // programs in the current directory.
                cwd.vars.assign(&a.name, None);
                continue;
            }
            // `declare -i n; n='a[$(cmd)]'` evaluates the value.
            let integer = cwd.vars.integer.contains(&a.name);
            if integer {
                let t = value.clone().unwrap_or_default();
                if !arith_ok(&t, &cwd.vars.numeric) {
                    self.reason("arithmetic_evaluation");
                }
            }
            cwd.vars.assign(&a.name, value.as_deref());
            // `H=$HOME`, `T=/`: the value the later commands see (an
            // assignment neither splits nor globs; `+=` appends to an
            // unknown value).
            let known = match a.values.as_slice() {
                [w] if !integer && !a.raw[a.name.len().min(a.raw.len())..].starts_with("+=") => {
                    known_value(w, cwd, &self.env.home)
                }
                _ => None,
            };
            if let Some(v) = known {
                cwd.vars.set_known(&a.name, vec![(v, false)]);
            }
        }
    }

    /// A list whose earlier statement set a name that changes what runs.
    pub(super) fn check_poison(&mut self, cwd: &Cwd) {
        if let Some(n) = &cwd.vars.poison {
            self.reason(&format!("statement_assignment:{n}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_operands() {
        let none: Vec<String> = Vec::new();
        let x = vec!["x".to_string()];
        assert!(arith_ok("1 + 2 * (3 - 4)", &none));
        assert!(arith_ok("0x1F + 8#17", &none));
        assert!(!arith_ok("x + 1", &none));
        assert!(arith_ok("x + 1", &x));
        assert!(arith_ok("$x + ${x}", &x));
        assert!(!arith_ok("$1", &x));
        assert!(!arith_ok("a[$(id)]", &none));
        assert!(!arith_ok("x[1]", &x));
        assert!(!arith_ok("$(nproc) * 2", &none));
        assert!(!arith_ok("i++", &none));
    }
}
