//! Compiles the declarative program specs (`specs/*.toml`, format in
//! `SPECS.md`) into static Rust tables, so the model costs nothing to load
//! and a malformed spec fails the build with the file and program named.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use serde::Deserialize;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct NodeSrc {
    style: Option<String>,
    names: Option<Vec<String>>,
    /// Of a program: the names under which its read-only forms apply
    /// (default: every name). `podman` shares docker's argv but is not a
    /// plain client of a daemon.
    readonly_names: Option<Vec<String>>,
    /// Of a program: every argv word `@FILE` is replaced by the words of
    /// FILE before options are read (libiberty's expandargv: binutils).
    #[serde(default)]
    atfiles: bool,
    kind: Option<String>,
    #[serde(default)]
    safe: bool,
    #[serde(default)]
    options: Option<String>,
    /// Named option sets (`[_sets]` of the same file) appended to `options`.
    #[serde(default)]
    option_sets: Vec<String>,
    #[serde(default)]
    operands: Option<String>,
    complete: Option<bool>,
    #[serde(default)]
    inherit: bool,
    #[serde(default)]
    sub_required: bool,
    #[serde(default)]
    numeric: bool,
    #[serde(default)]
    paths_modifier: bool,
    #[serde(default)]
    targets: bool,
    #[serde(default)]
    dir_reads: bool,
    #[serde(default)]
    plus: bool,
    /// Why a grant for this node never covers a call (`terraform console`
    /// evaluates what standard input brings).
    #[serde(default)]
    never_covered: Option<String>,
    /// Words after `--` are another program's options (`gh repo clone R --
    /// --template=T` hands them to git clone): a call with any is not
    /// covered.
    #[serde(default)]
    passthrough: bool,
    /// Its file operands are sent over the network (`gh gist create F`).
    #[serde(default)]
    uploads: bool,
    #[serde(default)]
    forms: Vec<FormSrc>,
    #[serde(default)]
    sub: BTreeMap<String, NodeSrc>,
    #[serde(default)]
    safe_examples: Vec<String>,
    #[serde(default)]
    unsafe_examples: Vec<String>,
    #[serde(default)]
    uncovered_examples: Vec<String>,
    #[serde(default)]
    verb_examples: Vec<(String, String)>,
    /// Free-form remarks for readers of the spec.
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
    /// Order of subcommands as written (filled from the raw table).
    #[serde(skip)]
    order: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FormSrc {
    #[serde(default)]
    requires: Vec<String>,
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    roles: BTreeMap<String, String>,
    operands: Option<String>,
}

struct Out {
    code: String,
    examples: Vec<(String, String, &'static str, Option<String>)>,
    names: BTreeMap<String, usize>,
    tables: Tables,
}

/// The generated arrays. The tables hold no pointers (issue 14): a string
/// is `Str::new(start, len)`, a range of one text, and a list is
/// `List::new(start, len)`, a range of the array of its element type.
#[derive(Default)]
struct Tables {
    /// Every string, each once.
    text: String,
    interned: BTreeMap<String, usize>,
    /// One array per element type: its elements' code, and the lists
    /// already stored (an identical list is stored once).
    arrays: BTreeMap<&'static str, Array>,
}

#[derive(Default)]
struct Array {
    items: Vec<String>,
    lists: BTreeMap<Vec<String>, usize>,
}

impl Tables {
    /// `Str` of a string.
    fn str(&mut self, s: &str) -> String {
        let start = match self.interned.get(s) {
            Some(&i) => i,
            None => {
                let i = self.text.len();
                self.text.push_str(s);
                self.interned.insert(s.to_string(), i);
                i
            }
        };
        format!("Str::new({start}, {})", s.len())
    }

    /// `Option<Str>` of an optional string.
    fn opt_str(&mut self, s: Option<&str>) -> String {
        match s {
            Some(s) => format!("Some({})", self.str(s)),
            None => "None".to_string(),
        }
    }

    /// `List` of elements of an array (`array` names its element type).
    fn list(&mut self, array: &'static str, items: Vec<String>) -> String {
        let a = self.arrays.entry(array).or_default();
        let start = match a.lists.get(&items) {
            Some(&i) => i,
            None if items.is_empty() => 0,
            None => {
                let i = a.items.len();
                a.items.extend(items.iter().cloned());
                a.lists.insert(items.clone(), i);
                i
            }
        };
        format!("List::new({start}, {})", items.len())
    }

    /// `List<Str>` of strings.
    fn strs<S: AsRef<str>>(&mut self, list: &[S]) -> String {
        let items = list.iter().map(|s| self.str(s.as_ref())).collect();
        self.list("Str", items)
    }
}

fn fail(file: &str, prog: &str, msg: impl std::fmt::Display) -> ! {
    panic!("program spec {file} [{prog}]: {msg}");
}

fn role(file: &str, prog: &str, r: &str) -> &'static str {
    match r {
        "text" => "Text",
        "pattern" => "Pattern",
        "glob" => "Glob",
        "read" => "Read",
        "list" => "List",
        "write" => "Write",
        "readwrite" => "ReadWrite",
        "delete" => "Delete",
        "chdir" => "Chdir",
        "filelist" => "FileList",
        "exec" => "Exec",
        "command" => "Command",
        "code" => "Code",
        "config" => "Config",
        "net" => "Net",
        "rev" => "Rev",
        "pathspec" => "Pathspec",
        "remote" => "Remote",
        "argv" => "Argv",
        "atfile" => "AtFile",
        "typedwrite" => "TypedWrite",
        "any" => "Any",
        _ => fail(file, prog, format!("unknown role `{r}`")),
    }
}

fn kind(file: &str, prog: &str, k: &str) -> &'static str {
    match k {
        "reader" => "Reader",
        "writer" => "Writer",
        "build" => "Build",
        "installer" => "Installer",
        "network" => "Network",
        "runner" => "Runner",
        "interpreter" => "Interpreter",
        "system" => "System",
        "other" => "Other",
        _ => fail(file, prog, format!("unknown kind `{k}`")),
    }
}

fn style(file: &str, prog: &str, s: &str) -> &'static str {
    match s {
        "gnu" => "Gnu",
        "posix" => "Posix",
        "git" => "Git",
        "go" => "Go",
        "cli" => "Cli",
        "exact" => "Exact",
        "find" => "Find",
        "tar" => "Tar",
        _ => fail(file, prog, format!("unknown style `{s}`")),
    }
}

fn flag_bit(file: &str, prog: &str, f: &str) -> &'static str {
    match f {
        "unsafe" => "fx::UNSAFE",
        "code" => "fx::CODE",
        "writes" => "fx::WRITES",
        "net" => "fx::NET",
        "modifier" => "fx::MODIFIER",
        "inplace" => "fx::INPLACE",
        "recursive" => "fx::RECURSIVE",
        "follow" => "fx::FOLLOW",
        "endopts" => "fx::ENDOPTS",
        "help" => "fx::HELP",
        "scope" => "fx::SCOPE",
        "deletes" => "fx::DELETES",
        "secret" => "fx::SECRET",
        "source" => "fx::SOURCE",
        "oneshot" => "fx::ONESHOT",
        "lastarg" => "fx::LASTARG",
        "pair" => "fx::PAIR",
        _ => fail(file, prog, format!("unknown option flag `!{f}`")),
    }
}

fn lit(s: &str) -> String {
    format!("{s:?}")
}

/// One option line: `NAMES [ROLE] [!FLAG…]`.
fn option_line(
    file: &str,
    prog: &str,
    line: &str,
    long_single: &mut bool,
) -> (OptSrc, Vec<String>) {
    let mut shorts: Vec<char> = Vec::new();
    let mut longs: Vec<String> = Vec::new();
    let mut arity = "None";
    let mut value_role: Option<&'static str> = None;
    let mut bits: Vec<&'static str> = Vec::new();
    let mut supplies: Option<String> = None;
    let mut check: Option<String> = None;
    let mut canonical: Option<String> = None;
    let mut spellings: Vec<String> = Vec::new();
    for tok in line.split_whitespace() {
        if let Some(f) = tok.strip_prefix('!') {
            if let Some(t) = f.strip_prefix("supplies=") {
                supplies = Some(t.to_string());
            } else if let Some(t) = f.strip_prefix("check=") {
                check = Some(t.to_string());
            } else {
                bits.push(flag_bit(file, prog, f));
            }
            continue;
        }
        if tok.starts_with('-') && tok.len() > 1 {
            if value_role.is_some() {
                fail(
                    file,
                    prog,
                    format!("option name `{tok}` after the role in `{line}`"),
                );
            }
            let (name, ar) = if let Some(i) = tok.find("[=") {
                if !tok.ends_with(']') {
                    fail(file, prog, format!("bad optional value in `{tok}`"));
                }
                (&tok[..i], Some("Optional"))
            } else if let Some(i) = tok.find('=') {
                (&tok[..i], Some("Required"))
            } else {
                (tok, None)
            };
            if let Some(a) = ar {
                if arity != "None" && arity != a {
                    fail(file, prog, format!("conflicting arities in `{line}`"));
                }
                arity = a;
            }
            if canonical.is_none() {
                canonical = Some(name.to_string());
            }
            spellings.push(name.to_string());
            if let Some(l) = name.strip_prefix("--") {
                if l.is_empty() {
                    fail(file, prog, "`--` is not an option name");
                }
                longs.push(l.to_string());
            } else {
                let rest = &name[1..];
                let mut cs = rest.chars();
                match (cs.next(), cs.next()) {
                    (Some(c), None) => shorts.push(c),
                    _ => {
                        *long_single = true;
                        longs.push(rest.to_string());
                    }
                }
            }
            continue;
        }
        if value_role.is_none() && !spellings.is_empty() {
            value_role = Some(role(file, prog, tok));
            continue;
        }
        fail(file, prog, format!("unexpected token `{tok}` in `{line}`"));
    }
    let Some(canonical) = canonical else {
        fail(file, prog, format!("option line without a name: `{line}`"));
    };
    if value_role.is_some() && arity == "None" {
        fail(
            file,
            prog,
            format!("a role is given but the option takes no value: `{line}`"),
        );
    }
    let value = value_role.unwrap_or("Text");
    let effects = if bits.is_empty() {
        "0".to_string()
    } else {
        bits.join(" | ")
    };
    (
        OptSrc {
            canonical,
            shorts,
            longs,
            arity,
            value,
            effects,
            supplies,
            check,
        },
        spellings,
    )
}

/// An option line read.
struct OptSrc {
    canonical: String,
    shorts: Vec<char>,
    longs: Vec<String>,
    arity: &'static str,
    value: &'static str,
    effects: String,
    supplies: Option<String>,
    check: Option<String>,
}

impl OptSrc {
    /// Its `Opt` (strings and lists stored in the tables).
    fn code(&self, t: &mut Tables) -> String {
        let OptSrc {
            arity,
            value,
            effects,
            ..
        } = self;
        let supplies = t.opt_str(self.supplies.as_deref());
        let check = t.opt_str(self.check.as_deref());
        let shorts = t.list(
            "char",
            self.shorts.iter().map(|c| format!("{c:?}")).collect(),
        );
        let longs = t.strs(&self.longs);
        let name = t.str(&self.canonical);
        format!(
            "Opt {{ name: {name}, short: {shorts}, long: {longs}, arity: Arity::{arity}, value: Role::{value}, effects: {effects}, supplies: {supplies}, check: {check} }}"
        )
    }
}

fn slots(file: &str, prog: &str, text: &str, t: &mut Tables) -> String {
    let mut out = Vec::new();
    for tok in text.split_whitespace() {
        let (tok, check) = match tok.split_once(':') {
            Some((a, b)) => (a, Some(b)),
            None => (tok, None),
        };
        let (tok, repeat) = if let Some(t) = tok.strip_suffix("...") {
            (t, "Many")
        } else if let Some(t) = tok.strip_suffix('+') {
            (t, "OneOrMore")
        } else if let Some(t) = tok.strip_suffix('?') {
            (t, "Optional")
        } else {
            (tok, "One")
        };
        let (r, tag) = match tok.split_once('@') {
            Some((a, b)) => (a, Some(b)),
            None => (tok, None),
        };
        let r = role(file, prog, r);
        let repeat = if r == "Argv" { "Many" } else { repeat };
        let tag = t.opt_str(tag);
        let check = t.opt_str(check);
        out.push(format!(
            "Slot {{ role: Role::{r}, repeat: Repeat::{repeat}, tag: {tag}, check: {check} }}"
        ));
    }
    // At most one repeating slot: the matcher fills fixed slots from both ends.
    let repeating = out
        .iter()
        .filter(|s| s.contains("Repeat::Many") || s.contains("Repeat::OneOrMore"))
        .count();
    if repeating > 1 {
        fail(
            file,
            prog,
            format!("more than one repeating operand slot in `{text}`"),
        );
    }
    t.list("Slot", out)
}

#[allow(clippy::too_many_arguments)]
fn node(
    file: &str,
    prog: &str,
    path: &str,
    n: &NodeSrc,
    names: Vec<String>,
    inherited_kind: &str,
    out: &mut Out,
    all_spellings: &mut BTreeSet<String>,
) -> String {
    let kind_s = n.kind.as_deref().map_or(inherited_kind.to_string(), |k| {
        kind(file, prog, k).to_string()
    });
    let mut long_single = false;
    let mut opts = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    // The node's own lines first; lines of option sets whose spellings the
    // node already defines are left out (the node overrides the set).
    let mut lines: Vec<(String, bool)> = n
        .options
        .as_deref()
        .unwrap_or_default()
        .lines()
        .map(|l| (l.to_string(), false))
        .collect();
    for set in &n.option_sets {
        match SETS.with(|s| s.borrow().get(set).cloned()) {
            Some(t) => lines.extend(t.lines().map(|l| (l.to_string(), true))),
            None => fail(file, prog, format!("unknown option set `{set}`")),
        }
    }
    for (line, from_set) in &lines {
        let line = match line.find(" #") {
            Some(i) => &line[..i],
            None => line,
        };
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut probe = false;
        let (opt, spellings) = option_line(file, prog, line, &mut probe);
        if *from_set && spellings.iter().any(|s| seen.contains(s)) {
            continue;
        }
        long_single |= probe;
        for s in &spellings {
            if !seen.insert(s.clone()) {
                fail(file, prog, format!("option `{s}` listed twice in `{path}`"));
            }
            all_spellings.insert(s.clone());
        }
        opts.push(opt.code(&mut out.tables));
    }
    let mut forms = Vec::new();
    for f in &n.forms {
        for name in f
            .requires
            .iter()
            .chain(f.allow.iter())
            .chain(f.roles.keys())
        {
            if !seen.contains(name) {
                fail(
                    file,
                    prog,
                    format!("form names `{name}`, which `{path}` does not list"),
                );
            }
        }
        let t = &mut out.tables;
        let roles: Vec<String> = f
            .roles
            .iter()
            .map(|(k, v)| format!("({}, Role::{})", t.str(k), role(file, prog, v)))
            .collect();
        let roles = t.list("(Str, Role)", roles);
        let operands = match &f.operands {
            Some(text) => format!("Some({})", slots(file, prog, text, t)),
            None => "None".to_string(),
        };
        let req = t.strs(&f.requires);
        let allow = t.strs(&f.allow);
        forms.push(format!(
            "Form {{ requires: {req}, allow: {allow}, roles: {roles}, operands: {operands} }}"
        ));
    }
    let mut subs = Vec::new();
    for sname in &n.order {
        let s = &n.sub[sname];
        let mut snames = vec![sname.clone()];
        if let Some(extra) = &s.names {
            for e in extra {
                if !snames.contains(e) {
                    snames.push(e.clone());
                }
            }
        }
        let sub_path = format!("{path} {sname}");
        subs.push(node(
            file,
            prog,
            &sub_path,
            s,
            snames,
            &kind_s,
            out,
            all_spellings,
        ));
    }
    let push_examples = |out: &mut Out, list: &[String], expect: &'static str| {
        for e in list {
            out.examples
                .push((prog.to_string(), e.clone(), expect, None));
        }
    };
    push_examples(out, &n.safe_examples, "Safe");
    push_examples(out, &n.unsafe_examples, "NotSafe");
    push_examples(out, &n.uncovered_examples, "NotCovered");
    for (cmd, verb) in &n.verb_examples {
        out.examples
            .push((prog.to_string(), cmd.clone(), "Verb", Some(verb.clone())));
    }
    let t = &mut out.tables;
    let operands = slots(file, prog, n.operands.as_deref().unwrap_or_default(), t);
    let names = t.strs(&names);
    let forms = t.list("Form", forms);
    let opts = t.list("Opt", opts);
    // A node's subcommands are one range: each sub's own subcommands were
    // stored while its code was made, before this list.
    let subs = t.list("Node", subs);
    format!(
        "Node {{ names: {names}, kind: Kind::{kind_s}, safe: {}, forms: {forms}, options: {opts}, complete: {}, inherit: {}, operands: {operands}, subs: {subs}, sub_required: {}, numeric: {}, paths_modifier: {}, targets: {}, dir_reads: {}, plus: {}, long_single_dash: {long_single}, never_covered: {}, passthrough: {}, uploads: {} }}",
        n.safe,
        n.complete.unwrap_or(true),
        n.inherit,
        n.sub_required,
        n.numeric,
        n.paths_modifier,
        n.targets,
        n.dir_reads,
        n.plus,
        match &n.never_covered {
            Some(why) => format!("Some({why:?})"),
            None => "None".to_string(),
        },
        n.passthrough,
        n.uploads,
    )
}

/// Subcommand order as written in the file (serde's map is sorted).
fn fill_order(n: &mut NodeSrc, raw: &toml::Table) {
    if let Some(toml::Value::Table(subs)) = raw.get("sub") {
        n.order = subs.keys().cloned().collect();
        for (k, v) in subs {
            if let (Some(child), toml::Value::Table(t)) = (n.sub.get_mut(k), v) {
                fill_order(child, t);
            }
        }
    }
}

fn has_safe(n: &NodeSrc) -> bool {
    n.safe || !n.forms.is_empty() || n.sub.values().any(has_safe)
}

fn count_examples(n: &NodeSrc, safe: &mut usize, unsafe_: &mut usize) {
    *safe += n.safe_examples.len();
    *unsafe_ += n.unsafe_examples.len();
    for s in n.sub.values() {
        count_examples(s, safe, unsafe_);
    }
}

thread_local! {
    /// Option sets of the file being compiled (`[_sets]`).
    static SETS: std::cell::RefCell<BTreeMap<String, String>> = const { std::cell::RefCell::new(BTreeMap::new()) };
}

fn main() {
    let dir = Path::new("specs");
    println!("cargo:rerun-if-changed=specs");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("specs directory")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut out = Out {
        code: String::new(),
        examples: Vec::new(),
        names: BTreeMap::new(),
        tables: Tables::default(),
    };
    let mut programs = Vec::new();
    let mut ids: BTreeSet<String> = BTreeSet::new();
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let file = f.display().to_string();
        let text = std::fs::read_to_string(f).expect("readable spec");
        let mut raw: toml::Table = toml::from_str(&text).unwrap_or_else(|e| fail(&file, "-", e));
        let mut sets = BTreeMap::new();
        if let Some(toml::Value::Table(t)) = raw.remove("_sets") {
            for (k, v) in t {
                match v {
                    toml::Value::String(s) => {
                        sets.insert(k, s);
                    }
                    _ => fail(&file, "_sets", format!("set `{k}` must be a string")),
                }
            }
        }
        SETS.with(|s| *s.borrow_mut() = sets);
        for (id, v) in &raw {
            let toml::Value::Table(t) = v else {
                fail(&file, id, "a program must be a table");
            };
            let mut n: NodeSrc = toml::Value::Table(t.clone())
                .try_into()
                .unwrap_or_else(|e| fail(&file, id, e));
            fill_order(&mut n, t);
            if !ids.insert(id.clone()) {
                fail(&file, id, "program defined twice");
            }
            if has_safe(&n) {
                let (mut s, mut u) = (0, 0);
                count_examples(&n, &mut s, &mut u);
                if s == 0 || u == 0 {
                    fail(
                        &file,
                        id,
                        "a program with read-only forms needs safe_examples and unsafe_examples",
                    );
                }
            }
            let style_s = style(&file, id, n.style.as_deref().unwrap_or("gnu"));
            let mut names = vec![id.clone()];
            if let Some(extra) = &n.names {
                names = extra.clone();
                if names.is_empty() {
                    fail(&file, id, "names is empty");
                }
            }
            let idx = programs.len();
            for name in &names {
                if out.names.insert(name.clone(), idx).is_some() {
                    fail(&file, id, format!("program name `{name}` used twice"));
                }
            }
            let readonly = match &n.readonly_names {
                Some(r) => {
                    if let Some(bad) = r.iter().find(|x| !names.contains(x)) {
                        fail(
                            &file,
                            id,
                            format!("readonly_names lists `{bad}`, not a name"),
                        );
                    }
                    r.clone()
                }
                None => names.clone(),
            };
            let mut spellings = BTreeSet::new();
            let root = node(&file, id, id, &n, names, "Other", &mut out, &mut spellings);
            let readonly = out.tables.strs(&readonly);
            let id = out.tables.str(id);
            programs.push(format!(
                "Program {{ id: {id}, style: Style::{style_s}, readonly_names: {readonly}, atfiles: {}, root: {root} }}",
                n.atfiles
            ));
        }
    }
    let mut examples = Vec::new();
    for (p, c, e, v) in &out.examples {
        let t = &mut out.tables;
        let (p, c, v) = (t.str(p), t.str(c), t.opt_str(v.as_deref()));
        examples.push(format!(
            "Example {{ program: {p}, command: {c}, expect: Expect::{e}, verb: {v} }}"
        ));
    }
    let code = &mut out.code;
    let _ = writeln!(code, "/// Every program the model knows.");
    let _ = writeln!(
        code,
        "pub static PROGRAMS: [Program; {}] = [",
        programs.len()
    );
    for p in &programs {
        let _ = writeln!(code, "    {p},");
    }
    let _ = writeln!(code, "];");
    let _ = writeln!(code, "/// The program a basename selects.");
    let _ = writeln!(
        code,
        "pub fn lookup(name: &str) -> Option<&'static Program> {{"
    );
    let _ = writeln!(code, "    let i = match name {{");
    for (name, idx) in &out.names {
        let _ = writeln!(code, "        {} => {idx},", lit(name));
    }
    let _ = writeln!(code, "        _ => return None,");
    let _ = writeln!(code, "    }};");
    let _ = writeln!(code, "    PROGRAMS.get(i)");
    let _ = writeln!(code, "}}");
    let _ = writeln!(code, "/// The examples the specs carry (checked by tests).");
    let _ = writeln!(
        code,
        "pub static EXAMPLES: [Example; {}] = [",
        examples.len()
    );
    for e in &examples {
        let _ = writeln!(code, "    {e},");
    }
    let _ = writeln!(code, "];");
    // The arrays the lists index, and the text the strings index. The text
    // is a `static` reference, its one relocation: as a `const` every
    // codegen unit that reads it gets its own copy (six in the executable).
    for (elem, array) in &out.tables.arrays {
        let name = format!(
            "{}S",
            elem.chars()
                .filter(|c| c.is_alphanumeric())
                .collect::<String>()
                .to_uppercase()
        );
        let _ = writeln!(
            code,
            "static {name}: [{elem}; {}] = [{}];",
            array.items.len(),
            array.items.join(", ")
        );
        let _ = writeln!(
            code,
            "impl Table for {elem} {{ fn table() -> &'static [{elem}] {{ &{name} }} }}"
        );
    }
    let _ = writeln!(code, "static TEXT: &str = {};", lit(&out.tables.text));
    let _ = writeln!(code, "/// The string at `start..start + len` of the text.");
    let _ = writeln!(code, "#[inline]");
    let _ = writeln!(
        code,
        "pub(crate) fn text(start: usize, len: usize) -> &'static str {{"
    );
    let _ = writeln!(code, "    TEXT.get(start..start + len).unwrap_or_default()");
    let _ = writeln!(code, "}}");
    let _ = writeln!(code, "/// The bytes at `start..start + len` of the text.");
    let _ = writeln!(code, "#[inline]");
    let _ = writeln!(
        code,
        "pub(crate) fn bytes(start: usize, len: usize) -> &'static [u8] {{"
    );
    let _ = writeln!(
        code,
        "    TEXT.as_bytes().get(start..start + len).unwrap_or_default()"
    );
    let _ = writeln!(code, "}}");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("specs.rs");
    std::fs::write(dest, &out.code).expect("write generated specs");
}
