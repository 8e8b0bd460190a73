//! The project's own syntax tree: what the analysis needs from a bash parse,
//! independent of the parser crate behind it (see `parse`).

use crate::word::Word;

/// A command list (`a; b & c && d`).
#[derive(Debug, Clone, Default)]
pub struct Script {
    pub items: Vec<Item>,
}

/// One and-or list with the separator that ends it.
#[derive(Debug, Clone)]
pub struct Item {
    pub first: Pipeline,
    pub rest: Vec<(AndOr, Pipeline)>,
    pub background: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AndOr {
    And,
    Or,
}

#[derive(Debug, Clone)]
pub struct Pipeline {
    pub negated: bool,
    /// `time` (`Some(true)` for `time -p`).
    pub timed: Option<bool>,
    pub elems: Vec<Elem>,
}

/// One element of a pipeline; `stderr_too` when it is followed by `|&`.
#[derive(Debug, Clone)]
pub struct Elem {
    pub cmd: Command,
    pub stderr_too: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlKind {
    For,
    ArithFor,
    While,
    Until,
    If,
    Case,
}

impl ControlKind {
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

#[derive(Debug, Clone)]
pub enum Command {
    Simple(Simple),
    Subshell {
        body: Script,
        redirects: Vec<Redirect>,
    },
    Group {
        body: Script,
        redirects: Vec<Redirect>,
    },
    /// Control flow: the words it evaluates (for-list, case subject and
    /// patterns, arithmetic text) and its bodies, in source order.
    Control {
        kind: ControlKind,
        words: Vec<Word>,
        bodies: Vec<Script>,
        redirects: Vec<Redirect>,
    },
    /// `(( … ))`
    Arith {
        text: Word,
    },
    /// `[[ … ]]`
    Test {
        words: Vec<Word>,
        redirects: Vec<Redirect>,
    },
    Function {
        name: String,
        body: Box<Command>,
    },
    Coproc {
        body: Box<Command>,
    },
}

/// A simple command as written (before any unwrapping).
#[derive(Debug, Clone)]
pub struct Simple {
    /// Character position of the command's first token.
    pub start: usize,
    pub assignments: Vec<Assignment>,
    /// Words, with process substitutions as placeholder words.
    pub words: Vec<Word>,
    /// Process substitutions: index into `words`, kind, parsed body.
    pub proc_substs: Vec<ProcSubst>,
    pub redirects: Vec<Redirect>,
}

#[derive(Debug, Clone)]
pub struct ProcSubst {
    pub word_index: usize,
    /// `true` for `>( … )`.
    pub output: bool,
    pub body: Script,
}

#[derive(Debug, Clone)]
pub struct Assignment {
    pub name: String,
    /// Raw source of the whole assignment word (`X=1`).
    pub raw: String,
    pub start: usize,
    /// Array subscript of `a[i]=v`.
    pub index: Option<Word>,
    /// The value words (one for a scalar, several for an array).
    pub values: Vec<Word>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirKind {
    Read,
    Write,
    Append,
    ReadWrite,
    Clobber,
    /// `n>&m`, `>&-`, `<&0`: fd duplication or closing.
    Dup,
    /// `&>` / `&>>` / `>&file`.
    OutErr,
    OutErrAppend,
    HereDoc,
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

#[derive(Debug, Clone)]
pub enum RedirTarget {
    File(Word),
    /// fd duplication or close, rendered as written (`1`, `-`).
    Fd(String),
    /// Heredoc body; `expands` when the delimiter was unquoted.
    HereDoc {
        body: Word,
        expands: bool,
    },
    HereString(Word),
    ProcSubst {
        output: bool,
        body: Script,
        raw: String,
    },
}

#[derive(Debug, Clone)]
pub struct Redirect {
    /// Operator as written, with its fd (`>`, `2>`, `>>`, `&>`, `<<<`).
    pub op: String,
    pub kind: RedirKind,
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
