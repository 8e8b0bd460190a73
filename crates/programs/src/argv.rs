//! Reading an argv as the program's own parser does: subcommands, options
//! (abbreviations, clusters, glued and separate values, negations, `--`),
//! and operands, each with the role its spec gives it.

use crate::spec::{fx, Arity, Node, Opt, Program, Repeat, Role, Slot, Str, Style};

/// One argument word as the analysis knows it.
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    /// Fully known after quote removal and expansion of `~`.
    Static(&'a str),
    /// Not known statically; `prefix` is the static text before the first
    /// dynamic piece.
    Dynamic {
        /// The static text before the first dynamic piece.
        prefix: &'a str,
    },
}

impl<'a> Arg<'a> {
    fn text(&self) -> &'a str {
        match self {
            Arg::Static(s) => s,
            Arg::Dynamic { prefix } => prefix,
        }
    }
}

/// Where an option's value is: `args[at][offset..]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValueAt {
    /// Index into the argument list.
    pub at: usize,
    /// Byte offset of the value inside that word (glued values).
    pub offset: usize,
}

/// One option as used.
#[derive(Debug, Clone)]
pub struct OptUse {
    /// The option (its spec).
    pub opt: &'static Opt,
    /// Depth of the node that owns the option (0 = the program).
    pub depth: usize,
    /// Index of the word holding the option.
    pub at: usize,
    /// Its value, when it takes one and one was given.
    pub value: Option<ValueAt>,
    /// Written as `--no-NAME` (git): the option's effects are off.
    pub negated: bool,
}

/// Why a word could not be read as the program reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Problem {
    /// An option the spec does not list.
    Unknown { at: usize, text: String },
    /// An abbreviation matching several options.
    Ambiguous { at: usize, text: String },
    /// A dynamic word where an option may stand.
    DynamicOption { at: usize },
    /// An option that needs a value got none.
    MissingValue { at: usize },
    /// A value given to an option that takes none (`--flag=x`).
    UnexpectedValue { at: usize },
    /// The first operand of a node that needs a subcommand is not one.
    UnknownSubcommand { at: usize },
}

impl Problem {
    /// Index of the word the problem is about.
    pub fn at(&self) -> usize {
        match self {
            Problem::Unknown { at, .. }
            | Problem::Ambiguous { at, .. }
            | Problem::DynamicOption { at }
            | Problem::MissingValue { at }
            | Problem::UnexpectedValue { at }
            | Problem::UnknownSubcommand { at } => *at,
        }
    }
}

/// An operand with its role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operand {
    /// Index into the argument list.
    pub at: usize,
    /// What the operand is.
    pub role: Role,
    /// Validator of program text.
    pub check: Option<&'static str>,
}

/// An argv read through the program model.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The program read.
    pub program: &'static Program,
    /// The program node, then each subcommand node selected.
    pub nodes: Vec<&'static Node>,
    /// Argument indices of the subcommand words.
    pub sub_at: Vec<usize>,
    /// Options, in argv order.
    pub opts: Vec<OptUse>,
    /// Operands of the deepest node, in order, roles not yet assigned.
    pub positionals: Vec<usize>,
    /// Words that could not be read as the program reads them.
    pub problems: Vec<Problem>,
    /// Index of a `--` that ended the options.
    pub dashdash: Option<usize>,
}

impl Parsed {
    /// The deepest node selected.
    pub fn leaf(&self) -> &'static Node {
        self.nodes.last().copied().unwrap_or(&self.program.root)
    }

    /// Whether an option (canonical name) is in effect: present, and its
    /// last occurrence not negated (git's parse-options: the last of
    /// `-n … --no-dry-run` wins).
    pub fn has(&self, name: &str) -> bool {
        self.opts
            .iter()
            .rev()
            .find(|o| o.opt.name == name)
            .is_some_and(|o| !o.negated)
    }

    /// Whether any present option carries an effect bit.
    pub fn any_effect(&self, bit: u32) -> bool {
        self.opts.iter().any(|o| !o.negated && o.opt.has(bit))
    }

    /// Tags supplied by present options (`grep -e` supplies `pat`).
    pub fn supplied(&self) -> Vec<&'static str> {
        self.opts
            .iter()
            .filter(|o| !o.negated)
            .filter_map(|o| o.opt.supplies.map(Str::as_str))
            .collect()
    }

    /// Operands with roles from the leaf's slots (or `slots` when given).
    pub fn operands_with(&self, slots: &'static [Slot]) -> Vec<Operand> {
        assign(slots, &self.positionals, &self.supplied())
    }

    /// Operands with roles from the leaf's own slots.
    pub fn operands(&self) -> Vec<Operand> {
        self.operands_with(self.leaf().operands.as_slice())
    }

    /// The text of a value inside the argument list (static values only).
    pub fn value_text<'a>(&self, args: &[Arg<'a>], v: ValueAt) -> Option<&'a str> {
        match args.get(v.at)? {
            Arg::Static(s) => s.get(v.offset..),
            Arg::Dynamic { .. } => None,
        }
    }
}

/// Assign roles to positional operands: fixed slots fill from the front and
/// from the back, the one repeating slot takes the rest. Operands beyond the
/// slots get `Any` (touched conservatively).
pub fn assign(slots: &[Slot], positionals: &[usize], supplied: &[&str]) -> Vec<Operand> {
    let slots: Vec<&Slot> = slots
        .iter()
        .filter(|s| !s.tag.is_some_and(|t| supplied.contains(&t.as_str())))
        .collect();
    let n = positionals.len();
    let rep = slots
        .iter()
        .position(|s| matches!(s.repeat, Repeat::Many | Repeat::OneOrMore));
    let mut roles: Vec<Option<&Slot>> = vec![None; n];
    match rep {
        None => {
            // Fixed and optional slots, in order.
            let required = slots.iter().filter(|s| s.repeat == Repeat::One).count();
            let mut optional_left = n.saturating_sub(required);
            let mut i = 0;
            for s in &slots {
                if i >= n {
                    break;
                }
                if s.repeat == Repeat::Optional {
                    if optional_left == 0 {
                        continue;
                    }
                    optional_left -= 1;
                }
                roles[i] = Some(s);
                i += 1;
            }
        }
        Some(r) => {
            let front = &slots[..r];
            let back = &slots[r + 1..];
            let mut i = 0;
            for s in front {
                if i < n {
                    roles[i] = Some(s);
                    i += 1;
                }
            }
            let mut j = n;
            for s in back.iter().rev() {
                if j > i {
                    j -= 1;
                    roles[j] = Some(s);
                }
            }
            for r_ in roles.iter_mut().take(j).skip(i) {
                *r_ = Some(slots[r]);
            }
        }
    }
    // Once a command line starts, every later operand belongs to it.
    if let Some(first) = roles
        .iter()
        .position(|s| s.is_some_and(|s| s.role == Role::Argv))
    {
        let argv = roles[first];
        for r_ in roles.iter_mut().skip(first) {
            *r_ = argv;
        }
    }
    positionals
        .iter()
        .zip(roles)
        .map(|(&at, s)| Operand {
            at,
            role: s.map_or(Role::Any, |s| s.role),
            check: s.and_then(|s| s.check).map(Str::as_str),
        })
        .collect()
}

/// Options visible at a depth: the node's own, plus its ancestors' when it
/// inherits them.
fn visible(nodes: &[&'static Node]) -> Vec<(&'static Opt, usize)> {
    let mut out = Vec::new();
    let depth = nodes.len() - 1;
    out.extend(nodes[depth].options.iter().map(|o| (o, depth)));
    let mut d = depth;
    while d > 0 && nodes[d].inherit {
        d -= 1;
        out.extend(nodes[d].options.iter().map(|o| (o, d)));
    }
    out
}

enum LongMatch {
    Found(&'static Opt, usize, bool),
    Ambiguous,
    None,
}

fn match_long(cands: &[(&'static Opt, usize)], name: &str, style: Style) -> LongMatch {
    for &(o, d) in cands {
        if o.long.contains(name) {
            return LongMatch::Found(o, d, false);
        }
    }
    let abbrev = matches!(style, Style::Gnu | Style::Git);
    if style == Style::Git {
        if let Some(rest) = name.strip_prefix("no-") {
            if let LongMatch::Found(o, d, _) = match_long(cands, rest, Style::Exact) {
                return LongMatch::Found(o, d, true);
            }
        }
    }
    if !abbrev || name.is_empty() {
        return LongMatch::None;
    }
    let mut found: Option<(&'static Opt, usize)> = None;
    let mut ambiguous = false;
    for &(o, d) in cands {
        if o.long
            .iter()
            .any(|l| l.as_bytes().starts_with(name.as_bytes()))
        {
            match found {
                Some((f, _)) if std::ptr::eq(f, o) => {}
                Some(_) => ambiguous = true,
                None => found = Some((o, d)),
            }
        }
    }
    // git: `--no-` prefixes abbreviate negations too.
    if style == Style::Git && found.is_none() {
        if let Some(rest) = name.strip_prefix("no-") {
            for &(o, d) in cands {
                if o.long
                    .iter()
                    .any(|l| l.as_bytes().starts_with(rest.as_bytes()))
                {
                    match found {
                        Some((f, _)) if std::ptr::eq(f, o) => {}
                        Some(_) => ambiguous = true,
                        None => found = Some((o, d)),
                    }
                }
            }
            if let (Some((o, d)), false) = (found, ambiguous) {
                return LongMatch::Found(o, d, true);
            }
        }
    }
    match (found, ambiguous) {
        (_, true) => LongMatch::Ambiguous,
        (Some((o, d)), false) => LongMatch::Found(o, d, false),
        (None, false) => LongMatch::None,
    }
}

/// A dynamic word whose static prefix is exactly a value-taking option and
/// the start of its glued value: `-j` of `-j$(nproc)`, `--jobs=` of
/// `--jobs=$N`. Returns the option and the value's offset.
fn glued_dynamic(
    cands: &[(&'static Opt, usize)],
    prefix: &str,
    style: Style,
) -> Option<(&'static Opt, usize, usize)> {
    if let Some(body) = prefix.strip_prefix("--") {
        let name = body.strip_suffix('=')?;
        if let LongMatch::Found(o, d, false) = match_long(cands, name, style) {
            if o.arity != Arity::None {
                return Some((o, d, prefix.len()));
            }
        }
        return None;
    }
    let rest = prefix.strip_prefix('-')?;
    let mut chars = rest.chars();
    let c = chars.next()?;
    if chars.next().is_some() {
        return None;
    }
    let (o, d) = find_short(cands, c)?;
    (o.arity != Arity::None).then_some((o, d, prefix.len()))
}

fn find_short(cands: &[(&'static Opt, usize)], c: char) -> Option<(&'static Opt, usize)> {
    cands.iter().copied().find(|(o, _)| o.short.contains(&c))
}

/// Read `args` (the words after the program word) with `program`'s model.
pub fn parse(program: &'static Program, args: &[Arg]) -> Parsed {
    let style = program.style;
    let mut p = Parsed {
        program,
        nodes: vec![&program.root],
        sub_at: Vec::new(),
        opts: Vec::new(),
        positionals: Vec::new(),
        problems: Vec::new(),
        dashdash: None,
    };
    if style == Style::Find {
        parse_find(&mut p, args);
        return p;
    }
    let mut i = 0;
    let mut options_done = false;
    if style == Style::Tar {
        // Old-style first word: `tar czf out.tgz dir`.
        if let Some(Arg::Static(first)) = args.first() {
            if !first.starts_with('-') && !first.is_empty() {
                let cands = visible(&p.nodes);
                let mut next = 1;
                for c in first.chars() {
                    let Some((o, d)) = find_short(&cands, c) else {
                        p.problems.push(Problem::Unknown {
                            at: 0,
                            text: format!("-{c}"),
                        });
                        continue;
                    };
                    let value = if o.arity == Arity::Required {
                        if next < args.len() {
                            next += 1;
                            Some(ValueAt {
                                at: next - 1,
                                offset: 0,
                            })
                        } else {
                            p.problems.push(Problem::MissingValue { at: 0 });
                            None
                        }
                    } else {
                        None
                    };
                    p.opts.push(OptUse {
                        opt: o,
                        depth: d,
                        at: 0,
                        value,
                        negated: false,
                    });
                }
                i = next;
            }
        }
    }
    while i < args.len() {
        let arg = args[i];
        let text = arg.text();
        let node = p.leaf();
        if options_done {
            p.positionals.push(i);
            i += 1;
            continue;
        }
        if let Arg::Dynamic { prefix } = arg {
            // `-j$(nproc)`, `--jobs=$N`: a known option whose glued value is
            // dynamic is that option (its value is unknown, not the option).
            if let Some((o, d, off)) = glued_dynamic(&visible(&p.nodes), prefix, style) {
                p.opts.push(OptUse {
                    opt: o,
                    depth: d,
                    at: i,
                    value: Some(ValueAt { at: i, offset: off }),
                    negated: false,
                });
                i += 1;
                continue;
            }
            if prefix.is_empty() || prefix.starts_with('-') {
                p.problems.push(Problem::DynamicOption { at: i });
            }
            i += 1;
            p.positionals.push(i - 1);
            continue;
        }
        if text == "--" {
            p.dashdash = Some(i);
            options_done = true;
            i += 1;
            continue;
        }
        // `cargo +nightly build`: a toolchain before the subcommand.
        if node.plus
            && p.nodes.len() == 1
            && p.positionals.is_empty()
            && text.len() > 1
            && text.starts_with('+')
        {
            i += 1;
            continue;
        }
        // The options in reach matter only to a word that looks like one.
        let cands = if text.starts_with('-') {
            visible(&p.nodes)
        } else {
            Vec::new()
        };
        if text.starts_with("--")
            || (node.long_single_dash && text.starts_with('-') && text.len() > 2)
        {
            let body = text.trim_start_matches('-');
            let (name, glued) = match body.split_once('=') {
                Some((n, v)) => (n, Some(text.len() - v.len())),
                None => (body, None),
            };
            // Single-dash words that are really short clusters (`-rn` on a
            // node with single-dash long options) fall through when no long
            // option matches.
            let single = !text.starts_with("--");
            match match_long(&cands, name, if single { Style::Exact } else { style }) {
                LongMatch::Found(o, d, negated) => {
                    i = take_value(&mut p, args, i, o, d, negated, glued, false);
                    if o.has(fx::ENDOPTS) {
                        options_done = true;
                    }
                    continue;
                }
                LongMatch::Ambiguous => {
                    p.problems.push(Problem::Ambiguous {
                        at: i,
                        text: text.to_string(),
                    });
                    i += 1;
                    continue;
                }
                LongMatch::None if !single => {
                    p.problems.push(Problem::Unknown {
                        at: i,
                        text: text.to_string(),
                    });
                    i += 1;
                    continue;
                }
                LongMatch::None => {}
            }
        }
        if text.starts_with('-') && text.len() > 1 {
            if style == Style::Go {
                // Go flags: `-name`, `-name=v`; no clusters.
                let body = &text[1..];
                let (name, glued) = match body.split_once('=') {
                    Some((n, v)) => (n, Some(text.len() - v.len())),
                    None => (body, None),
                };
                match match_long(&cands, name, Style::Exact) {
                    LongMatch::Found(o, d, _) => {
                        i = take_value(&mut p, args, i, o, d, false, glued, true);
                    }
                    _ => match name.chars().next().and_then(|c| {
                        (name.chars().count() == 1)
                            .then(|| find_short(&cands, c))
                            .flatten()
                    }) {
                        Some((o, d)) => {
                            i = take_value(&mut p, args, i, o, d, false, glued, true);
                        }
                        None => {
                            p.problems.push(Problem::Unknown {
                                at: i,
                                text: text.to_string(),
                            });
                            i += 1;
                        }
                    },
                }
                continue;
            }
            if node.numeric && text[1..].chars().all(|c| c.is_ascii_digit()) {
                // `head -5`: a number option; recorded as nothing special.
                i += 1;
                continue;
            }
            // git's parse-options answers `-h` with the usage of any
            // subcommand that does not define it, and exits 129 (`git
            // status -h`): the root's help option.
            if style == Style::Git
                && text == "-h"
                && p.nodes.len() > 1
                && node.complete
                && find_short(&cands, 'h').is_none()
            {
                let root = p.nodes[0];
                if let Some(o) = root
                    .options
                    .iter()
                    .find(|o| o.has(fx::HELP) && o.short.contains(&'h'))
                {
                    p.opts.push(OptUse {
                        opt: o,
                        depth: 0,
                        at: i,
                        value: None,
                        negated: false,
                    });
                    i += 1;
                    continue;
                }
            }
            // A short cluster: `-rnfFILE`.
            let chars: Vec<(usize, char)> = text.char_indices().skip(1).collect();
            let mut k = 0;
            let mut next = i + 1;
            let mut bad = false;
            while k < chars.len() {
                let (off, c) = chars[k];
                let Some((o, d)) = find_short(&cands, c) else {
                    p.problems.push(Problem::Unknown {
                        at: i,
                        text: format!("-{c}"),
                    });
                    bad = true;
                    break;
                };
                match o.arity {
                    Arity::None => {
                        p.opts.push(OptUse {
                            opt: o,
                            depth: d,
                            at: i,
                            value: None,
                            negated: false,
                        });
                        k += 1;
                    }
                    Arity::Optional | Arity::Required => {
                        let mut voff = off + c.len_utf8();
                        // pflag (cobra), clap and Go's flag package read
                        // `-o=V` as the value `V` (rt26b F1: `kubectl
                        // kustomize k -o=../../.bashrc` wrote `~/.bashrc`
                        // while the model read a name `=../../.bashrc`).
                        if matches!(style, Style::Cli | Style::Go) && text[voff..].starts_with('=')
                        {
                            voff += 1;
                        }
                        if voff < text.len() {
                            p.opts.push(OptUse {
                                opt: o,
                                depth: d,
                                at: i,
                                value: Some(ValueAt {
                                    at: i,
                                    offset: voff,
                                }),
                                negated: false,
                            });
                        } else if o.arity == Arity::Required {
                            if next < args.len() {
                                p.opts.push(OptUse {
                                    opt: o,
                                    depth: d,
                                    at: i,
                                    value: Some(ValueAt {
                                        at: next,
                                        offset: 0,
                                    }),
                                    negated: false,
                                });
                                next += 1;
                            } else {
                                p.problems.push(Problem::MissingValue { at: i });
                            }
                        } else {
                            p.opts.push(OptUse {
                                opt: o,
                                depth: d,
                                at: i,
                                value: None,
                                negated: false,
                            });
                        }
                        if o.has(fx::ENDOPTS) {
                            options_done = true;
                        }
                        break;
                    }
                }
                if o.has(fx::ENDOPTS) {
                    options_done = true;
                }
            }
            let _ = bad;
            i = next;
            continue;
        }
        // An operand: a subcommand word, or a positional.
        if !node.subs.is_empty() && p.positionals.is_empty() {
            if let Some(sub) = node.subs.iter().find(|s| s.names.contains(text)) {
                p.nodes.push(sub);
                p.sub_at.push(i);
                i += 1;
                continue;
            }
            if node.sub_required {
                // A subcommand the model does not know: its options are
                // unknown too; the rest is read as operands.
                p.problems.push(Problem::UnknownSubcommand { at: i });
                options_done = true;
            }
        }
        p.positionals.push(i);
        if matches!(style, Style::Posix | Style::Go) {
            options_done = true;
        }
        // A command line starts here: its words are its own (only a node
        // with a command-line slot can start one).
        if node.operands.iter().any(|s| s.role == Role::Argv) {
            let ops = assign(node.operands.as_slice(), &p.positionals, &p.supplied());
            if ops.last().is_some_and(|o| o.role == Role::Argv) {
                options_done = true;
            }
        }
        i += 1;
    }
    p
}

#[allow(clippy::too_many_arguments)]
fn take_value(
    p: &mut Parsed,
    args: &[Arg],
    i: usize,
    o: &'static Opt,
    d: usize,
    negated: bool,
    glued: Option<usize>,
    go_style: bool,
) -> usize {
    let mut next = i + 1;
    let value = match (o.arity, glued) {
        (Arity::None, Some(_)) => {
            // Go booleans accept `-flag=true|false`.
            if !go_style {
                p.problems.push(Problem::UnexpectedValue { at: i });
            }
            None
        }
        (Arity::None, None) => None,
        (_, Some(off)) => {
            // A pair's first value is never glued (`--arg=NAME` is not how
            // jq reads it).
            if o.has(fx::PAIR) {
                p.problems.push(Problem::UnexpectedValue { at: i });
            }
            Some(ValueAt { at: i, offset: off })
        }
        (Arity::Optional, None) => None,
        (Arity::Required, None) => {
            if next < args.len() && !negated {
                next += 1;
                // `jq --arg NAME VALUE`: the second word is text too.
                if o.has(fx::PAIR) {
                    if next < args.len() {
                        next += 1;
                    } else {
                        p.problems.push(Problem::MissingValue { at: i });
                    }
                }
                Some(ValueAt {
                    at: i + 1,
                    offset: 0,
                })
            } else {
                // Here `next >= args.len()` whenever the option is not
                // negated: a missing value is a problem unless the option
                // takes one only when a word follows (`!lastarg`).
                if !negated && !o.has(fx::LASTARG) {
                    p.problems.push(Problem::MissingValue { at: i });
                }
                None
            }
        }
    };
    p.opts.push(OptUse {
        opt: o,
        depth: d,
        at: i,
        value,
        negated,
    });
    next
}

/// `find [-H|-L|-P] [-D LIST] [-O LEVEL] [START…] [EXPRESSION]`.
fn parse_find(p: &mut Parsed, args: &[Arg]) {
    let node = p.leaf();
    let cands = visible(&p.nodes);
    let mut i = 0;
    // Leading options (short, before the starting points).
    while let Some(Arg::Static(t)) = args.get(i) {
        if !t.starts_with('-') || t.len() < 2 || t.starts_with("--") && t.len() > 2 {
            break;
        }
        if *t == "--" {
            p.dashdash = Some(i);
            i += 1;
            break;
        }
        let c = t[1..].chars().next().unwrap_or('-');
        let Some((o, d)) = find_short(&cands, c) else {
            break;
        };
        if t.chars().count() == 2 {
            if o.arity == Arity::Required {
                let v = (i + 1 < args.len()).then_some(ValueAt {
                    at: i + 1,
                    offset: 0,
                });
                if v.is_none() {
                    p.problems.push(Problem::MissingValue { at: i });
                }
                p.opts.push(OptUse {
                    opt: o,
                    depth: d,
                    at: i,
                    value: v,
                    negated: false,
                });
                i += 2;
            } else {
                p.opts.push(OptUse {
                    opt: o,
                    depth: d,
                    at: i,
                    value: None,
                    negated: false,
                });
                i += 1;
            }
        } else if o.arity == Arity::Required {
            p.opts.push(OptUse {
                opt: o,
                depth: d,
                at: i,
                value: Some(ValueAt { at: i, offset: 2 }),
                negated: false,
            });
            i += 1;
        } else {
            // -HL clusters are not accepted by find; treat as expression.
            break;
        }
    }
    // Starting points: up to the first expression token.
    while let Some(a) = args.get(i) {
        match a {
            Arg::Static(t) if t.starts_with('-') && t.len() > 1 => break,
            Arg::Static(t) if matches!(*t, "(" | "!" | "," | ")") => break,
            Arg::Dynamic { prefix } if prefix.is_empty() || prefix.starts_with('-') => {
                p.problems.push(Problem::DynamicOption { at: i });
                p.positionals.push(i);
                i += 1;
            }
            _ => {
                p.positionals.push(i);
                i += 1;
            }
        }
    }
    // The expression.
    while i < args.len() {
        let t = match args[i] {
            Arg::Static(t) => t,
            Arg::Dynamic { .. } => {
                p.problems.push(Problem::DynamicOption { at: i });
                i += 1;
                continue;
            }
        };
        if matches!(
            t,
            "(" | ")" | "!" | "," | "-not" | "-a" | "-and" | "-o" | "-or"
        ) {
            i += 1;
            continue;
        }
        let name = t.strip_prefix('-').unwrap_or("");
        let found = node.options.iter().find(|o| o.long.contains(name));
        let Some(o) = found else {
            p.problems.push(Problem::Unknown {
                at: i,
                text: t.to_string(),
            });
            i += 1;
            continue;
        };
        if o.value == Role::Command {
            // `-exec CMD… ;` / `+`: the command words up to the terminator.
            let start = i + 1;
            let mut j = start;
            while j < args.len() && !matches!(args[j], Arg::Static(";") | Arg::Static("+")) {
                j += 1;
            }
            p.opts.push(OptUse {
                opt: o,
                depth: 0,
                at: i,
                value: (start < args.len()).then_some(ValueAt {
                    at: start,
                    offset: 0,
                }),
                negated: false,
            });
            if j >= args.len() {
                p.problems.push(Problem::MissingValue { at: i });
            }
            i = j + 1;
            continue;
        }
        if o.arity == Arity::Required {
            let v = (i + 1 < args.len()).then_some(ValueAt {
                at: i + 1,
                offset: 0,
            });
            if v.is_none() {
                p.problems.push(Problem::MissingValue { at: i });
            }
            p.opts.push(OptUse {
                opt: o,
                depth: 0,
                at: i,
                value: v,
                negated: false,
            });
            i += 2;
        } else {
            p.opts.push(OptUse {
                opt: o,
                depth: 0,
                at: i,
                value: None,
                negated: false,
            });
            i += 1;
        }
    }
}
