//! Questions the policy asks of a parsed argv: is this a read-only form,
//! what does a grant of its verb not cover, which words are paths and in
//! what role.

use crate::argv::{Arg, Operand, Parsed, Problem, ValueAt};
use crate::checks::{self, Facts};
use crate::spec::{fx, Arity, Form, Kind, Node, Repeat, Role, Slot, Str};

/// A path-or-text word the command uses, with its role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Use {
    /// What the word is.
    pub role: Role,
    /// Where the word (or glued value) is.
    pub value: ValueAt,
    /// From an option (`--output=F`) rather than an operand.
    pub from_option: bool,
    /// Validator for code text.
    pub check: Option<&'static str>,
}

/// Why an argv is not a read-only form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotSafe(pub String);

/// The read-only form an argv matched.
#[derive(Debug, Clone)]
pub struct ReadOnly {
    /// Every word the command reads or names, with its role in the form.
    pub uses: Vec<Use>,
}

/// Devices whose writes are no writes (SPEC §5.3).
pub const EXEMPT_DEVICES: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"];

/// Effects that keep an option out of every read-only form.
const BAD_EFFECTS: u32 = fx::UNSAFE
    | fx::CODE
    | fx::WRITES
    | fx::NET
    | fx::INPLACE
    | fx::DELETES
    | fx::SECRET
    | fx::SOURCE
    | fx::ONESHOT;

fn role_safe(r: Role) -> bool {
    matches!(
        r,
        Role::Text
            | Role::Pattern
            | Role::Glob
            | Role::Read
            | Role::List
            | Role::Chdir
            | Role::Rev
            | Role::Pathspec
            | Role::Code
            | Role::Remote
            | Role::AtFile
    )
}

fn problems_block(p: &Parsed) -> Option<NotSafe> {
    p.problems.first().map(|pr| {
        NotSafe(match pr {
            Problem::Unknown { text, .. } => format!("unknown option {text}"),
            Problem::Ambiguous { text, .. } => format!("ambiguous option {text}"),
            Problem::DynamicOption { .. } => "a dynamic word where an option may stand".into(),
            Problem::MissingValue { .. } => "an option without its value".into(),
            Problem::UnexpectedValue { .. } => "a value for an option that takes none".into(),
            Problem::UnknownSubcommand { .. } => "an unknown subcommand".into(),
        })
    })
}

fn try_form(
    p: &Parsed,
    args: &[Arg],
    node: &Node,
    form: Option<&Form>,
    facts: &Facts,
) -> Result<ReadOnly, NotSafe> {
    if let Some(f) = form {
        if !f.requires.is_empty() && !f.requires.iter().any(|r| p.has(r)) {
            return Err(NotSafe(format!("needs one of {}", f.requires.join(", "))));
        }
    } else if !node.safe {
        return Err(NotSafe("not a read-only subcommand".into()));
    }
    let role_of = |name: &str, default: Role| -> Role {
        form.and_then(|f| f.roles.iter().find(|(n, _)| *n == name).map(|(_, r)| *r))
            .unwrap_or(default)
    };
    let mut uses = Vec::new();
    let explicit = form.is_some_and(|f| !f.allow.is_empty());
    for o in &p.opts {
        if o.negated {
            continue;
        }
        let listed =
            form.is_some_and(|f| f.requires.contains(&o.opt.name) || f.allow.contains(&o.opt.name));
        if explicit && !listed {
            return Err(NotSafe(format!(
                "option {} is not in the read-only form",
                o.opt.name
            )));
        }
        let role = role_of(&o.opt.name, o.opt.value);
        if o.opt.effects & BAD_EFFECTS != 0 || (o.opt.arity != Arity::None && !role_safe(role)) {
            return Err(NotSafe(format!("option {} is not read-only", o.opt.name)));
        }
        if let Some(v) = o.value {
            uses.push(Use {
                role,
                value: v,
                from_option: true,
                check: None,
            });
        }
    }
    let slots: &'static [Slot] = form
        .and_then(|f| f.operands)
        .unwrap_or(node.operands)
        .as_slice();
    // A form's required slots must be filled (`printenv NAME`: bare
    // `printenv` prints everything).
    if form.is_some_and(|f| f.operands.is_some()) {
        let required = slots
            .iter()
            .filter(|s| matches!(s.repeat, Repeat::One | Repeat::OneOrMore))
            .filter(|s| !s.tag.is_some_and(|t| p.supplied().contains(&t.as_str())))
            .count();
        if p.positionals.len() < required {
            return Err(NotSafe("a required operand is missing".into()));
        }
    }
    let ops: Vec<Operand> = p.operands_with(slots);
    for op in &ops {
        // Writing the null device or the terminal's streams writes nothing
        // (`tee /dev/null`, SPEC §8.1a).
        let exempt = matches!(args.get(op.at), Some(Arg::Static(t)) if EXEMPT_DEVICES.contains(t));
        if exempt && op.role.writes() {
            continue;
        }
        if !role_safe(op.role) {
            return Err(NotSafe(format!("operand {} is not read-only", op.at + 1)));
        }
        if op.role == Role::Code && op.check.is_none() {
            return Err(NotSafe("program text with no validator".into()));
        }
        let check = match (op.check, op.role) {
            (Some(c), _) => Some(c),
            (None, Role::Remote) => Some("remote"),
            _ => None,
        };
        if let Some(check) = check {
            let Some(Arg::Static(text)) = args.get(op.at) else {
                return Err(NotSafe("a dynamic word that must be checked".into()));
            };
            checks::run_in(check, text, facts).map_err(NotSafe)?;
        }
        uses.push(Use {
            role: op.role,
            value: ValueAt {
                at: op.at,
                offset: 0,
            },
            from_option: false,
            check: op.check,
        });
    }
    // Program text given through options (`sed -e`, `awk -v`?): validate.
    for o in &p.opts {
        // Program text by the node's role or by the form's (`ps -o` is a
        // format checked by `psformat` only where a selection reaches
        // other users' processes).
        if o.negated
            || (o.opt.value != Role::Code && role_of(&o.opt.name, o.opt.value) != Role::Code)
        {
            continue;
        }
        let check = o.opt.check.or_else(|| {
            node.operands.iter().find_map(|s| s.check).or_else(|| {
                form.and_then(|f| f.operands)
                    .and_then(|s| s.iter().find_map(|s| s.check))
            })
        });
        let (Some(check), Some(v)) = (check, o.value) else {
            return Err(NotSafe(format!(
                "program text in {} with no validator",
                o.opt.name
            )));
        };
        let Some(text) = p.value_text(args, v) else {
            return Err(NotSafe("dynamic program text".into()));
        };
        checks::run_in(&check, text, facts).map_err(NotSafe)?;
    }
    Ok(ReadOnly { uses })
}

/// [`read_only`] for the program started as `name` (its basename): under a
/// name the spec's `readonly_names` leaves out (`podman`, which shares
/// docker's argv), nothing is read-only.
pub fn read_only_as(name: &str, p: &Parsed, args: &[Arg]) -> Result<ReadOnly, NotSafe> {
    read_only_as_in(name, p, args, &Facts::NONE)
}

/// [`read_only_as`], with what the caller knows of the world.
pub fn read_only_as_in(
    name: &str,
    p: &Parsed,
    args: &[Arg],
    facts: &Facts,
) -> Result<ReadOnly, NotSafe> {
    if !p.program.readonly_names.iter().any(|n| n.as_str() == name) {
        return Err(NotSafe(format!("no read-only form under the name {name}")));
    }
    read_only_in(p, args, facts)
}

/// Whether the argv is one of the program's read-only forms.
pub fn read_only(p: &Parsed, args: &[Arg]) -> Result<ReadOnly, NotSafe> {
    read_only_in(p, args, &Facts::NONE)
}

/// [`read_only`], with what the caller knows of the world (whether an
/// object id names commits only).
pub fn read_only_in(p: &Parsed, args: &[Arg], facts: &Facts) -> Result<ReadOnly, NotSafe> {
    if let Some(e) = problems_block(p) {
        return Err(e);
    }
    if let Some(w) = at_file_word(p, args) {
        return Err(NotSafe(format!(
            "{w} is a response file: options and files the call does not show"
        )));
    }
    let node = p.leaf();
    if node.sub_required && !node.subs.is_empty() {
        return Err(NotSafe("no subcommand".into()));
    }
    // Options of ancestor nodes (globals) must themselves be safe.
    let mut last = Err(NotSafe("not a read-only form".into()));
    if node.safe {
        match try_form(p, args, node, None, facts) {
            Ok(r) => return Ok(r),
            Err(e) => last = Err(e),
        }
    }
    for f in node.forms {
        match try_form(p, args, node, Some(f), facts) {
            Ok(r) => return Ok(r),
            Err(e) => last = Err(e),
        }
    }
    last
}

/// Only `--help`/`--version`-like options and no operands.
pub fn help_only(p: &Parsed) -> bool {
    !p.opts.is_empty()
        && p.problems.is_empty()
        && p.positionals.is_empty()
        && p.opts.iter().all(|o| o.opt.has(fx::HELP))
}

/// Whether an `uncovered` reason makes the call complex (one-shot
/// approval only, SPEC §15.5 push shapes) rather than only keeping grants
/// and persistent options away from it.
pub fn is_oneshot(reason: &str) -> bool {
    reason.starts_with("oneshot_option:") || reason.starts_with("operand_check:")
}

/// Operand checks that only decide whether a form is read-only: a call
/// failing one asks, and the human's grant for its verb covers it (a
/// `git show` grant covers `git show 4c1e9a2`).
const READ_ONLY_CHECKS: &[&str] = &[
    "commitrev",
    "configkey",
    "psformat",
    "psown",
    "psbsd",
    "envname",
];

/// A word a program with response files would replace (`@FILE` anywhere,
/// an option's separate value included, rt15 F3: `strings -n @list f`), or
/// a dynamic word that could become one.
fn at_file_word(p: &Parsed, args: &[Arg]) -> Option<String> {
    if !p.program.atfiles {
        return None;
    }
    args.iter().find_map(|a| match a {
        Arg::Static(t) if t.starts_with('@') => Some(format!("`{t}`")),
        // A pattern bash may expand to `@x` (rt16 F3: `strings ?x` with a
        // file named `@x` in the directory); `src/*.o` starts `src/`.
        Arg::Static(t) if t.starts_with(['*', '?', '[']) => Some(format!("the pattern `{t}`")),
        Arg::Static(_) => None,
        Arg::Dynamic { .. } => Some("a dynamic word".to_string()),
    })
}

/// Why a grant for the call's verb would not cover it (empty: covered).
pub fn uncovered(p: &Parsed, args: &[Arg]) -> Vec<String> {
    let mut out = Vec::new();
    let name = p.program.id;
    let leaf = p.leaf();
    if at_file_word(p, args).is_some() {
        out.push(format!("oneshot_option:{name}:@file"));
    }
    if let Some(why) = leaf.never_covered {
        out.push(format!("never_covered:{name}:{why}"));
    }
    // A system query whose option changes the machine (`sysctl -w`, `date
    // -s`, `hostname -F`, rt28c F2): the grant came from the query, the
    // human never saw the setter. (A reader's writing options, `sed -i`,
    // `find -delete`, are what its grant is for.)
    if leaf.kind == Kind::System {
        for o in &p.opts {
            if o.opt.has(fx::WRITES | fx::DELETES) && !o.opt.has(fx::MODIFIER) {
                out.push(format!("setter_option:{name}:{}", o.opt.name));
            }
        }
    }
    if leaf.passthrough && p.dashdash.is_some_and(|dd| dd + 1 < args.len()) {
        out.push(format!("passthrough:{name}:--"));
    }
    // A program that sends its file operands over the network (`gh gist
    // create F`, `gh release upload TAG F`, rt26b F7): like `curl -T`.
    if leaf.uploads && p.operands().iter().any(|op| op.role == Role::Read) {
        out.push(format!("upload:{name}:operand"));
    }
    for pr in &p.problems {
        match pr {
            // An option naming a package source, even where the model
            // tolerates unknown options (`npm i --@evil:registry=URL`).
            Problem::Unknown { text, .. }
                if matches!(leaf.kind, Kind::Installer | Kind::Build)
                    && [
                        "registry", "index", "source", "--@", "proxy", "ssl", "cert", "insecure",
                        "trusted",
                    ]
                    .iter()
                    .any(|k| text.contains(k)) =>
            {
                out.push(format!("package_source:{name}:{text}"))
            }
            Problem::Unknown { text, .. } if leaf.complete => {
                out.push(format!("unknown_option:{name}:{text}"))
            }
            Problem::Ambiguous { text, .. } => out.push(format!("ambiguous_option:{name}:{text}")),
            Problem::DynamicOption { .. } if leaf.complete => {
                out.push(format!("dynamic_option:{name}"))
            }
            _ => {}
        }
    }
    for o in &p.opts {
        if o.negated {
            continue;
        }
        let runs = o.opt.has(fx::CODE) || (o.opt.arity != Arity::None && o.opt.value.runs_code());
        if runs {
            out.push(format!("code_option:{name}:{}", o.opt.name));
        }
        if o.opt.has(fx::SOURCE) {
            out.push(format!("package_source:{name}:{}", o.opt.name));
        }
        if o.opt.has(fx::ONESHOT) {
            out.push(format!("oneshot_option:{name}:{}", o.opt.name));
        }
        // A network program sending a local file (`curl -T f URL`, `-d @f`,
        // `-F x=@f`): a grant for its verb (a session's `curl localhost`)
        // does not cover an upload to anywhere (rt23).
        if (matches!(leaf.kind, Kind::Network) || matches!(p.program.root.kind, Kind::Network))
            && !only_loopback(p, args)
        {
            let text = o.value.and_then(|v| p.value_text(args, v));
            // `@-` sends standard input, which may be a file (`< src/a`,
            // `cat f |`, rt24 B5); wget's `--post-file`/`--body-file` (B6).
            let stdin = |t: &str| {
                t == "@-"
                    || t.ends_with("=@-")
                    || t.ends_with("=<-")
                    || (!t.contains('=') && t.ends_with("@-"))
            };
            let sends = match o.opt.value {
                Role::AtFile => text.is_none_or(|t| at_file(t).is_some() || stdin(t)),
                _ => {
                    (name == "curl" && o.opt.name == "-T")
                        || (name == "wget"
                            && matches!(o.opt.name.as_str(), "--post-file" | "--body-file"))
                }
            };
            if sends {
                out.push(format!("upload:{name}:{}", o.opt.name));
            }
        }
        // curl's `-w '%output{FILE}…'` (8.3+) writes the rest of the
        // write-out to FILE (rt26b F12).
        if name == "curl"
            && o.opt.name == "-w"
            && o.value
                .and_then(|v| p.value_text(args, v))
                .is_none_or(|t| t.contains("%output{"))
        {
            out.push(format!("oneshot_option:{name}:-w"));
        }
        // A list of files named elsewhere (`--files0-from`, `tar -T`): what
        // it reads is not what the human saw (§15.2).
        if o.opt.arity != Arity::None && o.opt.value == Role::FileList {
            out.push(format!("file_list:{name}:{}", o.opt.name));
        }
    }
    // Program text (sed scripts, awk programs, jq filters) must pass its
    // validator: a grant for `sed` does not cover `sed 'e id'`.
    let check = leaf.operands.iter().find_map(|s| s.check.map(Str::as_str));
    for o in &p.opts {
        if o.negated || o.opt.value != Role::Code {
            continue;
        }
        let text = o.value.and_then(|v| p.value_text(args, v));
        if !code_ok(o.opt.check.map(Str::as_str).or(check), text) {
            out.push(format!("program_text:{name}"));
        }
    }
    for op in p.operands() {
        if op.role.runs_code() {
            out.push(format!("code_operand:{name}"));
        }
        let text = match args.get(op.at) {
            Some(Arg::Static(s)) => Some(*s),
            _ => None,
        };
        if op.role == Role::Code {
            if !code_ok(op.check.or(check), text) {
                out.push(format!("program_text:{name}"));
            }
        } else if let Some(c) = op.check.filter(|c| !READ_ONLY_CHECKS.contains(c)) {
            // Operand checks (a push's remote and refspecs).
            if !code_ok(Some(c), text) {
                out.push(format!("operand_check:{name}:{c}"));
            }
        }
    }
    out.dedup();
    out
}

fn code_ok(check: Option<&str>, text: Option<&str>) -> bool {
    match (check, text) {
        (Some(c), Some(t)) => checks::run(c, t).is_ok(),
        _ => false,
    }
}

/// Every word with a role: option values and operands (roles of the node,
/// not of a read-only form), for candidates, protected paths and secrets.
pub fn uses(p: &Parsed) -> Vec<Use> {
    let mut out = Vec::new();
    let inplace = p.any_effect(fx::INPLACE);
    for o in &p.opts {
        if let Some(v) = o.value {
            out.push(Use {
                role: o.opt.value,
                value: v,
                from_option: true,
                check: None,
            });
        }
    }
    for op in p.operands() {
        let role = if inplace && op.role == Role::Read {
            Role::ReadWrite
        } else {
            op.role
        };
        out.push(Use {
            role,
            value: ValueAt {
                at: op.at,
                offset: 0,
            },
            from_option: false,
            check: op.check,
        });
    }
    out
}

/// Canonical names of the modifier options present, in argv order: the
/// verb names them (`git reset --hard`).
///
/// A negation of an option that selects a read-only form (`git clean -n
/// --no-dry-run`) cancels that form: the verb names the negation too, so a
/// grant for the bare verb does not cover what the cancelled dry run now
/// does.
pub fn modifiers(p: &Parsed) -> Vec<String> {
    let leaf = p.leaf();
    let selector = |name: &str| leaf.forms.iter().any(|f| f.requires.contains(name));
    let mut v: Vec<(usize, String)> = p
        .opts
        .iter()
        .filter_map(|o| {
            // The last occurrence wins (`git restore -S --no-staged f`
            // restores the work tree).
            if !o.negated && o.opt.has(fx::MODIFIER) && p.has(&o.opt.name) {
                Some((o.at, o.opt.name.to_string()))
            } else if o.negated && selector(&o.opt.name) {
                let long = o
                    .opt
                    .long
                    .first()
                    .map_or(o.opt.name.as_str(), |l| l.as_str());
                Some((o.at, format!("--no-{}", long.trim_start_matches('-'))))
            } else {
                None
            }
        })
        .collect();
    v.sort();
    v.dedup_by(|a, b| a.1 == b.1);
    v.into_iter().map(|(_, n)| n).collect()
}

/// Whether every destination of a network call is this machine's loopback
/// (`localhost:8081/api`, `http://127.0.0.1/`, `[::1]`) and nothing sends
/// it elsewhere: no proxy, no `--resolve`/`--connect-to` rewrite, no
/// following of redirects. Posting a fixture to the project's own dev
/// server is what a grant for the tool was given for.
fn only_loopback(p: &Parsed, args: &[Arg]) -> bool {
    const ELSEWHERE: &[&str] = &[
        "-x",
        "--proxy",
        "--preproxy",
        "--socks4",
        "--socks4a",
        "--socks5",
        "--socks5-hostname",
        "--resolve",
        "--connect-to",
        "-L",
        "--location",
        "--location-trusted",
        "--doh-url",
        "--unix-socket",
        "--abstract-unix-socket",
        "-K",
        "--config",
    ];
    if p.opts
        .iter()
        .any(|o| !o.negated && ELSEWHERE.contains(&o.opt.name.as_str()))
    {
        return false;
    }
    let mut dests = p
        .operands()
        .into_iter()
        .filter(|op| op.role == Role::Net)
        .peekable();
    if dests.peek().is_none() {
        return false;
    }
    dests.all(|op| match args.get(op.at) {
        Some(Arg::Static(t)) => loopback_url(t),
        _ => false,
    })
}

fn loopback_url(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(scheme, r)| {
        if matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https") {
            r
        } else {
            "\0"
        }
    });
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains('@') {
        return false;
    }
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        authority.split(':').next().unwrap_or("")
    };
    let host = host.to_ascii_lowercase();
    host == "localhost"
        || host == "::1"
        || (host.starts_with("127.")
            && host.split('.').count() == 4
            && host
                .split('.')
                .all(|x| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit())))
}

/// The file an `atfile` value names (`@F`, `name=@F`, `name=<F`,
/// `name@F`), if any; `-` (standard input) names none.
pub fn at_file(text: &str) -> Option<&str> {
    let f = if let Some(f) = text.strip_prefix('@') {
        f
    } else if let Some(i) = text.find("=@").or_else(|| text.find("=<")) {
        &text[i + 2..]
    } else {
        match (text.find('@'), text.find('=')) {
            (Some(a), None) if a > 0 => &text[a + 1..],
            _ => return None,
        }
    };
    // `-F name=@file;type=text/plain`: the file ends at `;`.
    let f = f.split(';').next().unwrap_or("");
    (!f.is_empty() && f != "-").then_some(f)
}

/// Whether the verb names `--` because the call acts on paths
/// (`git checkout -- f`, `git checkout .`).
pub fn paths_mode(p: &Parsed, args: &[Arg]) -> bool {
    let leaf = p.leaf();
    if !leaf.paths_modifier {
        return false;
    }
    if p.dashdash.is_some() || p.positionals.len() > 1 {
        return true;
    }
    p.positionals.iter().any(|&i| match args.get(i) {
        Some(Arg::Static(t)) => {
            *t == "." || t.starts_with('.') || t.contains('/') || t.contains('*')
        }
        _ => true,
    })
}

/// Scope options present with their static values (`--context=prod`).
pub fn scopes(p: &Parsed, args: &[Arg]) -> Vec<String> {
    let mut v: Vec<(usize, String)> = Vec::new();
    for o in &p.opts {
        if o.negated || !o.opt.has(fx::SCOPE) {
            continue;
        }
        let val = o.value.and_then(|x| p.value_text(args, x)).unwrap_or("?");
        // The long spelling reads better in a prompt (`--context=prod`).
        let name = o
            .opt
            .long
            .first()
            .map_or(o.opt.name.to_string(), |l| format!("--{l}"));
        v.push((o.at, format!("{name}={val}")));
    }
    v.sort();
    v.into_iter().map(|(_, s)| s).collect()
}
