//! The project's own syntax tree: what the analysis needs from a bash parse,
//! independent of the parser crate behind it (see `parse`).

use crate::word::Word;

/// A command list (`a; b & c && d`).
#[derive(Debug, Clone, Default)]
pub struct Script {
    /// The and-or lists, in source order.
    pub items: Vec<Item>,
}

/// One and-or list with the separator that ends it.
#[derive(Debug, Clone)]
pub struct Item {
    /// The first pipeline.
    pub first: Pipeline,
    /// The pipelines that follow, each with the operator before it.
    pub rest: Vec<(AndOr, Pipeline)>,
    /// Ended by `&` (runs in the background).
    pub background: bool,
}

/// The operator joining two pipelines of an and-or list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AndOr {
    /// `&&`
    And,
    /// `||`
    Or,
}

/// Commands joined by `|` (or `|&`).
#[derive(Debug, Clone)]
pub struct Pipeline {
    /// Preceded by `!`.
    pub negated: bool,
    /// `time` (`Some(true)` for `time -p`).
    pub timed: Option<bool>,
    /// The commands of the pipeline, in order.
    pub elems: Vec<Elem>,
}

/// One element of a pipeline; `stderr_too` when it is followed by `|&`.
#[derive(Debug, Clone)]
pub struct Elem {
    /// The command.
    pub cmd: Command,
    /// Followed by `|&` (standard error is piped too).
    pub stderr_too: bool,
}

/// The kind of a control-flow construct.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlKind {
    /// `for NAME in …`
    For,
    /// `for (( … ))`
    ArithFor,
    /// `while`
    While,
    /// `until`
    Until,
    /// `if`
    If,
    /// `case`
    Case,
}

impl ControlKind {
    /// The keyword that introduces it (`for` for both `for` forms).
    pub fn keyword(self) -> &'static str {
        match self {
            ControlKind::For | ControlKind::ArithFor => "for",
            ControlKind::While => "while",
            ControlKind::Until => "until",
            ControlKind::If => "if",
            ControlKind::Case => "case",
        }
    }
}

/// One command of a pipeline.
#[derive(Debug, Clone)]
pub enum Command {
    /// A simple command (words, assignments, redirects).
    Simple(Simple),
    /// `( … )`
    Subshell {
        /// The commands inside.
        body: Script,
        /// Redirects applied to the whole subshell.
        redirects: Vec<Redirect>,
    },
    /// `{ …; }`
    Group {
        /// The commands inside.
        body: Script,
        /// Redirects applied to the whole group.
        redirects: Vec<Redirect>,
    },
    /// Control flow: the words it evaluates (for-list, case subject and
    /// patterns, arithmetic text) and its bodies, in source order.
    Control {
        /// Which construct.
        kind: ControlKind,
        /// Words it evaluates.
        words: Vec<Word>,
        /// Bodies (conditions included), in source order.
        bodies: Vec<Script>,
        /// Redirects applied to the whole construct.
        redirects: Vec<Redirect>,
        /// `for NAME in WORDS`: the loop's name (`None` for other
        /// constructs and for `for NAME` over the positional parameters).
        var: Option<String>,
    },
    /// `(( … ))`
    Arith {
        /// The arithmetic text.
        text: Word,
    },
    /// `[[ … ]]`
    Test {
        /// The words of the test expression.
        words: Vec<Word>,
        /// Operands bash evaluates as arithmetic expressions (`-eq`, `-lt` …).
        arith: Vec<Word>,
        /// Operands that name variables (`-v NAME`, `-R NAME`): a subscript
        /// in a name is evaluated.
        names: Vec<Word>,
        /// Redirects applied to the test.
        redirects: Vec<Redirect>,
    },
    /// A function definition.
    Function {
        /// The function's name.
        name: String,
        /// Its body.
        body: Box<Command>,
    },
    /// `coproc …`
    Coproc {
        /// The command run as a coprocess.
        body: Box<Command>,
    },
}

/// A simple command as written (before any unwrapping).
#[derive(Debug, Clone)]
pub struct Simple {
    /// Character position of the command's first token.
    pub start: usize,
    /// Leading `NAME=value` assignments.
    pub assignments: Vec<Assignment>,
    /// Words, with process substitutions as placeholder words.
    pub words: Vec<Word>,
    /// Process substitutions: index into `words`, kind, parsed body.
    pub proc_substs: Vec<ProcSubst>,
    /// Redirects written on the command.
    pub redirects: Vec<Redirect>,
}

/// A process substitution used as a word (`<( … )`, `>( … )`).
#[derive(Debug, Clone)]
pub struct ProcSubst {
    /// Index of its placeholder in [`Simple::words`].
    pub word_index: usize,
    /// `true` for `>( … )`.
    pub output: bool,
    /// The commands inside.
    pub body: Script,
    /// Text touches it (`x<(…)`): bash passes one word the parse does not
    /// show.
    pub glued: bool,
}

/// A `NAME=value` assignment before a command.
#[derive(Debug, Clone)]
pub struct Assignment {
    /// The variable name.
    pub name: String,
    /// Raw source of the whole assignment word (`X=1`).
    pub raw: String,
    /// Character position of the assignment.
    pub start: usize,
    /// Array subscript of `a[i]=v`.
    pub index: Option<Word>,
    /// The value words (one for a scalar, several for an array).
    pub values: Vec<Word>,
}

/// What a redirect does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirKind {
    /// `<`
    Read,
    /// `>`
    Write,
    /// `>>`
    Append,
    /// `<>`
    ReadWrite,
    /// `>|`
    Clobber,
    /// `n>&m`, `>&-`, `<&0`: fd duplication or closing.
    Dup,
    /// `&>` / `&>>` / `>&file`.
    OutErr,
    /// `&>>`
    OutErrAppend,
    /// `<<` / `<<-`
    HereDoc,
    /// `<<<`
    HereString,
}

impl RedirKind {
    /// Whether the redirect writes to its target.
    pub fn writes(self) -> bool {
        matches!(
            self,
            RedirKind::Write
                | RedirKind::Append
                | RedirKind::ReadWrite
                | RedirKind::Clobber
                | RedirKind::OutErr
                | RedirKind::OutErrAppend
        )
    }
}

/// What a redirect points at.
#[derive(Debug, Clone)]
pub enum RedirTarget {
    /// A file name.
    File(Word),
    /// fd duplication or close, rendered as written (`1`, `-`).
    Fd(String),
    /// Heredoc body; `expands` when the delimiter was unquoted.
    HereDoc {
        /// The body text.
        body: Word,
        /// Unquoted delimiter: expansions in the body run.
        expands: bool,
    },
    /// The word of a here-string.
    HereString(Word),
    /// A process substitution as target (`< <( … )`).
    ProcSubst {
        /// `true` for `>( … )`.
        output: bool,
        /// The commands inside.
        body: Script,
        /// Source text as written.
        raw: String,
    },
}

/// A redirect of a command.
#[derive(Debug, Clone)]
pub struct Redirect {
    /// Operator as written, with its fd (`>`, `2>`, `>>`, `&>`, `<<<`).
    pub op: String,
    /// What it does.
    pub kind: RedirKind,
    /// What it points at.
    pub target: RedirTarget,
    /// From an implicit `|&` (not written by the user).
    pub implicit: bool,
}

impl Redirect {
    /// `<op> <target>` as the display and approval units render it; fd
    /// duplications as written (`2>&1`).
    pub fn render(&self) -> String {
        match &self.target {
            RedirTarget::Fd(fd) => format!("{}{}", self.op, fd),
            RedirTarget::File(w) | RedirTarget::HereString(w) => format!("{} {}", self.op, w.raw),
            RedirTarget::HereDoc { .. } => self.op.clone(),
            RedirTarget::ProcSubst { raw, .. } => format!("{} {}", self.op, raw),
        }
    }

    /// The target word of a file redirect.
    pub fn file(&self) -> Option<&Word> {
        match &self.target {
            RedirTarget::File(w) => Some(w),
            _ => None,
        }
    }
}
