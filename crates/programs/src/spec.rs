//! The types of the program model. Instances are generated at build time
//! from the declarative specs in `specs/*.toml` (see `SPECS.md`), so they
//! are `'static` and cost nothing to load.
//!
//! The tables hold no pointers (issue 14): a string is a [`Str`], a range of
//! one generated text, and a list is a [`List`], a range of one generated
//! array per element type. A pointer in a static is a relocation the dynamic
//! loader writes at every start of a position-independent executable, and
//! each page it writes is a copy-on-write page fault; ranges cost nothing.

use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;

/// A string of the program tables: a byte range of the generated text.
/// The default is the empty string.
#[derive(Clone, Copy, Default)]
pub struct Str {
    start: u32,
    len: u32,
}

impl Str {
    /// The string at `start..start + len` of the generated text (used by the
    /// generated tables).
    pub(crate) const fn new(start: u32, len: u32) -> Str {
        Str { start, len }
    }

    /// The string.
    #[inline]
    pub fn as_str(self) -> &'static str {
        crate::generated::text(self.start as usize, self.len as usize)
    }

    /// Its length in bytes (known without reading the text).
    #[inline]
    pub fn len(self) -> usize {
        self.len as usize
    }

    /// Whether it is empty.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    /// Its bytes (without the character-boundary checks of [`Str::as_str`]).
    #[inline]
    pub fn as_bytes(self) -> &'static [u8] {
        crate::generated::bytes(self.start as usize, self.len as usize)
    }

    /// Whether it is `s` (the lengths first: most comparisons of the
    /// option tables fail there, without reading the text).
    #[inline]
    pub fn is(self, s: &str) -> bool {
        self.len() == s.len() && self.as_bytes() == s.as_bytes()
    }
}

impl Deref for Str {
    type Target = str;
    #[inline]
    fn deref(&self) -> &'static str {
        self.as_str()
    }
}

impl AsRef<str> for Str {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for Str {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Str {
    fn eq(&self, other: &Str) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Str {}

impl std::hash::Hash for Str {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialEq<str> for Str {
    fn eq(&self, other: &str) -> bool {
        self.is(other)
    }
}

impl PartialEq<&str> for Str {
    fn eq(&self, other: &&str) -> bool {
        self.is(other)
    }
}

impl PartialEq<String> for Str {
    fn eq(&self, other: &String) -> bool {
        self.is(other)
    }
}

impl PartialEq<Str> for String {
    fn eq(&self, other: &Str) -> bool {
        other.is(self)
    }
}

impl PartialEq<Str> for str {
    fn eq(&self, other: &Str) -> bool {
        other.is(self)
    }
}

impl PartialEq<Str> for &str {
    fn eq(&self, other: &Str) -> bool {
        other.is(self)
    }
}

impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

/// An element type of the program tables: every value of it lives in one
/// generated array, which a [`List`] indexes.
pub trait Table: Sized + 'static {
    /// The generated array.
    fn table() -> &'static [Self];
}

/// A list of the program tables: a range of the generated array of `T`.
pub struct List<T: Table> {
    start: u32,
    len: u32,
    of: PhantomData<fn() -> T>,
}

impl<T: Table> List<T> {
    /// The elements `start..start + len` of the array of `T` (used by the
    /// generated tables).
    pub(crate) const fn new(start: u32, len: u32) -> List<T> {
        List {
            start,
            len,
            of: PhantomData,
        }
    }

    /// The elements.
    #[inline]
    pub fn as_slice(self) -> &'static [T] {
        let start = self.start as usize;
        T::table()
            .get(start..start + self.len as usize)
            .unwrap_or_default()
    }
}

impl List<Str> {
    /// Whether a string is in the list.
    pub fn contains(&self, s: &str) -> bool {
        self.iter().any(|x| x.is(s))
    }
}

impl<T: Table> Clone for List<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Table> Copy for List<T> {}

impl<T: Table> Deref for List<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &'static [T] {
        self.as_slice()
    }
}

impl<T: Table> IntoIterator for List<T> {
    type Item = &'static T;
    type IntoIter = std::slice::Iter<'static, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<T: Table> IntoIterator for &List<T> {
    type Item = &'static T;
    type IntoIter = std::slice::Iter<'static, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<T: Table + fmt::Debug> fmt::Debug for List<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

/// How a program's own parser reads options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// GNU `getopt_long`: options and operands may interleave (permutation),
    /// any unambiguous prefix of a long option is that option, short options
    /// cluster (`-rn`) and carry glued values (`-oFILE`), `--` ends options.
    Gnu,
    /// POSIX `getopt` (BSD tools, `+` optstrings): like `Gnu` for short
    /// options, but the first operand ends the options; long options are
    /// matched exactly.
    Posix,
    /// git's parse-options: like `Gnu` (unambiguous prefixes, permutation,
    /// `--no-` negations of long options).
    Git,
    /// Go's `flag` package: `-name` or `--name`, values as `-name=v` or
    /// `-name v`, no clusters, no abbreviations, the first operand ends the
    /// flags.
    Go,
    /// Cobra/clap/argparse-like CLIs with subcommands: exact long names,
    /// short clusters, interleaving allowed.
    Cli,
    /// A program whose parser the model does not describe beyond the option
    /// list (exact spellings only; anything else is unknown).
    Exact,
    /// `find`: leading `-H -L -P -D -O` options, starting points up to the
    /// first expression token, then the expression (single-dash primaries;
    /// `-exec … ;` runs a command).
    Find,
    /// `tar`: GNU style, and a first word without a dash is a cluster of
    /// old-style options whose values are the following words in order.
    Tar,
}

/// What a value (of an option) or an operand is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// Free text: a number, a name, a format; never a file.
    Text,
    /// A search pattern matched against content (regex, fixed string).
    Pattern,
    /// A glob or name pattern selecting which files are read
    /// (`--include=GLOB`, `rg -g`): checked against secret names.
    Glob,
    /// A file or directory whose contents are read.
    Read,
    /// A file or tree whose names (not contents) are listed.
    List,
    /// A file written (created or replaced).
    Write,
    /// A file read and rewritten in place.
    ReadWrite,
    /// A file or tree deleted.
    Delete,
    /// A directory the program changes into (its effective directory).
    Chdir,
    /// A file naming more files to read (`--files0-from`, `-T`).
    FileList,
    /// A program file that is executed.
    Exec,
    /// A command string run by a shell.
    Command,
    /// Program text of the tool's own language (sed script, awk program,
    /// jq filter); safe only when its validator accepts it.
    Code,
    /// A configuration file that can select code (`--rcfile`, `-F config`).
    Config,
    /// A network destination (URL, `host:path`, `host::module`).
    Net,
    /// A git revision (`REV:path` reads `path` from history).
    Rev,
    /// A git pathspec (files whose content or history is printed).
    Pathspec,
    /// A remote: a configured name, or a URL / `host:path` / path.
    Remote,
    /// A data argument that names a file to read when written `@FILE`,
    /// `name=@FILE`, `name=<FILE` or `name@FILE` (curl's `-d`, `-F`, `-H`).
    AtFile,
    /// `KIND[:FILE]`: a report kind, and the file after the first `:` is
    /// written (pytest-cov's `--cov-report=xml:out.xml`).
    TypedWrite,
    /// This operand and every later word are a command line the program
    /// runs (`timeout 5 CMD…`, `npx CMD…`): options end where it starts.
    Argv,
    /// Anything: a path when it looks like one, touched conservatively.
    Any,
}

impl Role {
    /// Roles that name local paths the command touches.
    pub fn is_path(self) -> bool {
        matches!(
            self,
            Role::Read
                | Role::List
                | Role::Write
                | Role::ReadWrite
                | Role::Delete
                | Role::Chdir
                | Role::FileList
                | Role::Exec
                | Role::Config
                | Role::Pathspec
                | Role::Any
        )
    }

    /// Roles whose use makes the program change files.
    pub fn writes(self) -> bool {
        matches!(
            self,
            Role::Write | Role::ReadWrite | Role::Delete | Role::TypedWrite | Role::Any
        )
    }

    /// Roles that run code nobody can see in the command (unless validated).
    pub fn runs_code(self) -> bool {
        matches!(self, Role::Exec | Role::Command | Role::Config)
    }

    /// Roles whose words run as (part of) another command.
    pub fn runs_command(self) -> bool {
        matches!(self, Role::Command | Role::Argv)
    }
}

/// Whether and how an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    /// A flag.
    None,
    /// A required value: glued (`-oF`, `--out=F`) or the next word.
    Required,
    /// An optional value: glued only (`-i.bak`, `--color=always`).
    Optional,
}

/// Effects of an option's presence (bit set).
pub mod fx {
    /// Never part of a read-only form.
    pub const UNSAFE: u32 = 1;
    /// Runs code or a command the human did not see: complex under a grant.
    pub const CODE: u32 = 1 << 1;
    /// Makes the program write or change files.
    pub const WRITES: u32 = 1 << 2;
    /// Contacts the network.
    pub const NET: u32 = 1 << 3;
    /// Changes what the verb does: the verb names it (`git reset --hard`).
    pub const MODIFIER: u32 = 1 << 4;
    /// Rewrites the program's file operands in place (`sed -i`).
    pub const INPLACE: u32 = 1 << 5;
    /// Acts recursively on directory operands.
    pub const RECURSIVE: u32 = 1 << 6;
    /// Follows symbolic links while walking a tree.
    pub const FOLLOW: u32 = 1 << 7;
    /// Ends option parsing: every later word is an operand.
    pub const ENDOPTS: u32 = 1 << 8;
    /// `--help`-like: prints usage and exits.
    pub const HELP: u32 = 1 << 9;
    /// Selects a different target (cluster, registry, account): the verb
    /// names it with its value.
    pub const SCOPE: u32 = 1 << 10;
    /// Deletes files (`rsync --delete`, `git clean -f`).
    pub const DELETES: u32 = 1 << 11;
    /// Reveals secrets (prints tokens, credentials or the environment).
    pub const SECRET: u32 = 1 << 12;
    /// Selects a package source other than the default (installers).
    pub const SOURCE: u32 = 1 << 13;
    /// Never covered by a grant: the call can only be approved once
    /// (`git push --force`, `--mirror`).
    pub const ONESHOT: u32 = 1 << 14;
    /// A required value that may be left out when the option is the last
    /// word (git's `PARSE_OPT_LASTARG_DEFAULT`: `git branch --merged`
    /// means `--merged HEAD`; `git branch --merged -a` takes `-a` as the
    /// commit).
    pub const LASTARG: u32 = 1 << 15;
    /// The value is two words, both text (`jq --arg NAME VALUE`).
    pub const PAIR: u32 = 1 << 16;
}

/// One option of a program or subcommand.
#[derive(Debug)]
pub struct Opt {
    /// Canonical spelling (the first name in the spec), used in reasons,
    /// verbs and form lists.
    pub name: Str,
    /// Short option characters (`-o`).
    pub short: List<char>,
    /// Long option names without the dashes (`output`).
    pub long: List<Str>,
    /// Whether it takes a value.
    pub arity: Arity,
    /// What the value is.
    pub value: Role,
    /// Effects (bits of [`fx`]).
    pub effects: u32,
    /// An operand slot tag this option supplies (`grep -e` supplies the
    /// pattern, `cp -t` the target).
    pub supplies: Option<Str>,
    /// The validator of its value when the value is program text or a
    /// setting (`git -c NAME=VALUE`: `gitconfig`); before the node's
    /// operand validator.
    pub check: Option<Str>,
}

impl Opt {
    /// Whether the option has an effect bit.
    pub fn has(&self, bit: u32) -> bool {
        self.effects & bit != 0
    }

    /// Whether the option may appear in a read-only form.
    pub fn safe(&self) -> bool {
        self.effects
            & (fx::UNSAFE
                | fx::CODE
                | fx::WRITES
                | fx::NET
                | fx::INPLACE
                | fx::DELETES
                | fx::SECRET
                | fx::SOURCE)
            == 0
            && !(self.arity != Arity::None
                && (self.value.writes() || self.value.runs_code() || self.value == Role::Net))
    }
}

/// How many operands a slot takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repeat {
    One,
    Optional,
    Many,
    OneOrMore,
}

/// One operand slot.
#[derive(Debug)]
pub struct Slot {
    pub role: Role,
    pub repeat: Repeat,
    /// Removed when an option supplying this tag is present.
    pub tag: Option<Str>,
    /// Name of the validator for `Code`/`Text` operands (`sed`, `awk`, `jq`).
    pub check: Option<Str>,
}

/// A read-only form beyond "every known safe option" (for nodes whose
/// read-only use is selected by an option, such as `tar -t`).
#[derive(Debug)]
pub struct Form {
    /// At least one of these options must be present (empty: none needed).
    pub requires: List<Str>,
    /// Options allowed in this form (canonical names); empty: every option
    /// of the node that is safe by its effects, plus `requires`.
    pub allow: List<Str>,
    /// Role overrides of option values in this form.
    pub roles: List<(Str, Role)>,
    /// Operand slots of this form (None: the node's).
    pub operands: Option<List<Slot>>,
}

/// What kind of program a node is (drives environment and grant rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Reads and prints (coreutils, viewers).
    Reader,
    /// Changes files (cp, mv, rm, chmod).
    Writer,
    /// Runs project code (build, test, task runners): its grant already lets
    /// project code run.
    Build,
    /// Installs packages (runs downloaded code).
    Installer,
    /// Talks to a remote service.
    Network,
    /// Runs another program given on its command line.
    Runner,
    /// A shell or language interpreter.
    Interpreter,
    /// Prints facts about the machine.
    System,
    /// Anything else.
    Other,
}

/// A program or one of its subcommands.
#[derive(Debug)]
pub struct Node {
    /// The words that select it (program basenames, or subcommand names).
    pub names: List<Str>,
    /// Kind of program.
    pub kind: Kind,
    /// Its bare use (every known option safe by its effects) is read-only.
    pub safe: bool,
    /// Extra read-only forms.
    pub forms: List<Form>,
    /// Options of this node.
    pub options: List<Opt>,
    /// The option list is complete: an option not in it is unknown (not
    /// safe, not covered by a grant). When false, unknown options are
    /// tolerated under a grant (never in a safe form).
    pub complete: bool,
    /// Options of the ancestors are accepted here too (cobra persistent
    /// flags).
    pub inherit: bool,
    /// Operand slots.
    pub operands: List<Slot>,
    /// Subcommands.
    pub subs: List<Node>,
    /// A subcommand must follow (the bare program does nothing by itself).
    pub sub_required: bool,
    /// `-NUM` is an option (`head -5`).
    pub numeric: bool,
    /// A leading `+NAME` selects a toolchain (`cargo +nightly build`): read
    /// as a global option before the subcommand.
    pub plus: bool,
    /// Its first operands name what runs (make targets, `npm run` scripts,
    /// gradle tasks): options and `NAME=value` words before them are skipped
    /// when the verb is named (`make -j8 deploy` is `make deploy`).
    pub targets: bool,
    /// A directory operand is read, not refused: the program reads the
    /// files in it and follows the links among them (`diff d1 d2` compares
    /// every name both hold, without `-r`). The policy judges such an
    /// operand like the tree of a recursive reader that follows links.
    pub dir_reads: bool,
    /// The verb names `--` when the call acts on paths (`git checkout -- f`,
    /// `git checkout .`): a path operand, `--`, or more than one operand.
    pub paths_modifier: bool,
    /// Short single-dash long options (`-name` for find/Go-style) are
    /// matched as long options.
    pub long_single_dash: bool,
    /// Why a grant for this node never covers a call (`terraform console`
    /// evaluates what standard input brings: rt26b F10).
    pub never_covered: Option<&'static str>,
    /// Words after `--` are another program's options (`gh repo clone R --
    /// --template=T`, rt26b F9): a call with any is not covered.
    pub passthrough: bool,
    /// Its file operands are sent over the network (`gh gist create F`,
    /// `gh release upload TAG F`, rt26b F7): a grant never covers a call
    /// naming one, like `curl -T F`.
    pub uploads: bool,
}

/// A program: its top-level node and its option parser.
#[derive(Debug)]
pub struct Program {
    /// Identifier (the spec's table name).
    pub id: Str,
    pub style: Style,
    /// The names under which the read-only forms apply (`docker`, not
    /// `podman`): under another name nothing is read-only.
    pub readonly_names: List<Str>,
    /// Every argv word `@FILE` (an option's separate value too) is replaced
    /// by the words of FILE before the options are read (binutils).
    pub atfiles: bool,
    pub root: Node,
}

/// What a spec example expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Allowed as read-only inside the project.
    Safe,
    /// Not read-only (asks without a grant).
    NotSafe,
    /// Not covered by a grant of its verb: complex, or its own verb.
    NotCovered,
    /// Only its verb is checked.
    Verb,
}

/// A checked example carried by a spec.
#[derive(Debug)]
pub struct Example {
    pub program: Str,
    pub command: Str,
    pub expect: Expect,
    /// Expected verb (for verb examples).
    pub verb: Option<Str>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{lookup, EXAMPLES, PROGRAMS};

    /// Out-of-range or split ranges read as empty: every string and list
    /// of the generated tables must read back at its full length.
    fn check_str(s: Str) {
        assert_eq!(
            s.as_str().len(),
            s.len(),
            "string range {:?}",
            (s.start, s.len)
        );
        assert_eq!(s.as_bytes(), s.as_str().as_bytes());
        assert!(s.is(s.as_str()) && s == s.as_str());
    }

    fn check_list<T: Table>(l: List<T>) {
        assert_eq!(
            l.as_slice().len(),
            l.len as usize,
            "list range {:?}",
            (l.start, l.len)
        );
    }

    fn check_node(n: &'static Node) {
        check_list(n.names);
        n.names.iter().for_each(|s| check_str(*s));
        check_list(n.options);
        for o in n.options {
            check_str(o.name);
            check_list(o.short);
            check_list(o.long);
            o.long.iter().chain(&o.supplies).for_each(|s| check_str(*s));
        }
        check_list(n.operands);
        check_list(n.forms);
        for f in n.forms {
            check_list(f.requires);
            check_list(f.allow);
            check_list(f.roles);
            f.requires.iter().chain(f.allow).for_each(|s| check_str(*s));
            f.roles.iter().for_each(|(s, _)| check_str(*s));
            f.operands.into_iter().for_each(check_list);
        }
        for s in n.operands.iter().chain(
            n.forms
                .iter()
                .flat_map(|f| f.operands.into_iter().flatten()),
        ) {
            s.tag.iter().chain(&s.check).for_each(|s| check_str(*s));
        }
        check_list(n.subs);
        n.subs.iter().for_each(check_node);
    }

    #[test]
    fn every_string_and_list_of_the_tables_reads_back_whole() {
        for p in &PROGRAMS {
            check_str(p.id);
            check_node(&p.root);
        }
        for e in &EXAMPLES {
            e.verb.iter().for_each(|s| check_str(*s));
            check_str(e.program);
            check_str(e.command);
            assert!(!e.command.is_empty());
        }
    }

    #[test]
    fn strings_compare_and_hash_as_their_text() {
        let git = lookup("git").expect("git");
        assert_eq!(git.id, "git");
        let owned = format!("g{}", "it");
        assert!("git" == git.id);
        assert!(git.id == owned);
        assert!(owned == git.id);
        assert!(git.id != "gi" && git.id != "gitk");
        let set: std::collections::HashSet<Str> = git
            .root
            .subs
            .iter()
            .flat_map(|n| n.names)
            .copied()
            .collect();
        assert!(set.contains("status") && !set.contains("no-such-verb"));
        assert!(git.root.subs.iter().any(|n| n.names.contains("status")));
        assert_eq!(format!("{}|{:?}", git.id, git.id), "git|\"git\"");
        assert_eq!(Str::default().as_str(), "");
    }
}
