//! Shell words as the analysis sees them: raw source text, the static value
//! after quote removal and escape decoding exactly as bash does it, and every
//! piece that would only be known at run time (SPEC §3.2).
//!
//! The decoding uses brush-parser's word parser; nothing here splits words by
//! hand.

use brush_parser::word::{self as bw, Parameter, ParameterExpr, TildeExpr, WordPiece};
use brush_parser::ParserOptions;

/// One piece of a word's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    /// Literal text; `quoted` when it came from quotes or an escape.
    Lit {
        /// The text, after quote removal.
        text: String,
        /// From quotes or an escape.
        quoted: bool,
    },
    /// `~` at the start of an unquoted word, or `$HOME` / `${HOME}`.
    Home,
    /// Anything only known at run time (parameters, substitutions, `~user`).
    Dynamic,
}

/// Kind of a nested command a word carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubstKind {
    /// `$( … )`
    Command,
    /// `` `…` ``
    Backtick,
}

/// Command text nested in a word, to be parsed and analyzed recursively.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subst {
    /// `$( … )` or backquotes.
    pub kind: SubstKind,
    /// The nested command text.
    pub text: String,
    /// Character offset inside the word's raw text (for source ordering).
    pub offset: usize,
}

/// Text bash evaluates again when it expands a word (SPEC §15.13,
/// §15.20): arithmetic re-evaluates variable values as expressions, `${!v}`
/// and `${v@P}` expand a value again, an operator's word may run a
/// substitution however it looks quoted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Eval {
    /// An arithmetic expression (`$(( … ))`, a `${v:off:len}` offset or
    /// length, an array subscript).
    Arith(String),
    /// `${!v}`: the value names another variable.
    Indirect,
    /// `${v@P}`, `${v@E}`, `${v@A}`…: the value is expanded again.
    Transform,
    /// An operator's word holding `$(`, a backquote, `$((`, `<(` or `>(`
    /// in any quoting (`"${x:-'$(cmd)'}"` runs `cmd`).
    OperatorSubst,
    /// `${NAME:=v}` / `${NAME=v}`: the expansion assigns NAME.
    Assign(String),
}

/// A word with its raw source and decoded value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// Source text exactly as written.
    pub raw: String,
    /// Character index of the word's start in its script (ordering only).
    pub start: usize,
    /// The value, piece by piece.
    pub segs: Vec<Seg>,
    /// Command substitutions it carries.
    pub substs: Vec<Subst>,
    /// Quotes or escapes appear somewhere in the source.
    pub quoted: bool,
    /// An unquoted glob character (`*`, `?`, `[`) appears.
    pub glob: bool,
    /// An unquoted brace expansion (`{a,b}`, `{1..3}`) appears.
    pub brace: bool,
    /// The word parser refused the text, or a nested piece could not be read.
    pub unparsed: bool,
    /// Set for placeholders of process substitutions (`<( … )`).
    pub proc_subst: bool,
    /// What bash evaluates again when it expands the word.
    pub evals: Vec<Eval>,
    /// The dynamic pieces that are a plain parameter (`$NAME`, `${NAME}`)
    /// or `$(pwd)`/`` `pwd` ``: what a value known from the same call can
    /// stand for (hard deny evaluates them, §15.13).
    pub params: Vec<Param>,
}

/// A plain parameter piece of a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// Index of its [`Seg::Dynamic`] in [`Word::segs`].
    pub seg: usize,
    /// The parameter's name; [`PWD_SUBST`] for `$(pwd)`.
    pub name: String,
    /// Inside double quotes (no splitting, no globbing of its value).
    pub quoted: bool,
    /// `${NAME:-…}`, `${NAME:=…}`, `${NAME:?…}`: the value counts only
    /// when it is not empty (else the default or an error).
    pub nonempty: bool,
}

/// The names [`Param`] gives `$1` … `$9`.
pub const POSITIONAL: [&str; 9] = ["1", "2", "3", "4", "5", "6", "7", "8", "9"];

/// The name [`Param`] gives a `$(echo WORD)` piece, before WORD (`~`: the
/// home).
pub const ECHO_SUBST: &str = "$(echo)";

/// The name [`Param`] gives a `$(pwd)` or `` `pwd` `` piece.
pub const PWD_SUBST: &str = "$(pwd)";

impl Word {
    /// Analyze `raw` (a word as it appears in the source).
    pub fn analyze(raw: &str, start: usize) -> Word {
        if is_plain_text(raw) {
            // What the word parser makes of it: one unquoted text piece.
            return Word::static_text(raw, start, false).unquoted();
        }
        Word::analyze_parsed(raw, start)
    }

    /// The same word with its pieces marked unquoted (a plain word).
    fn unquoted(mut self) -> Word {
        self.quoted = false;
        for s in &mut self.segs {
            if let Seg::Lit { quoted, .. } = s {
                *quoted = false;
            }
        }
        self
    }

    /// [`Word::analyze`] through the word parser, whatever the text.
    fn analyze_parsed(raw: &str, start: usize) -> Word {
        let mut w = Word {
            raw: raw.to_string(),
            start,
            segs: Vec::new(),
            substs: Vec::new(),
            quoted: false,
            glob: false,
            brace: false,
            unparsed: false,
            proc_subst: false,
            evals: Vec::new(),
            params: Vec::new(),
        };
        // brush-parser 0.4 unwraps numbers it parses out of `~+N`, `~-N`
        // and `{a..b}` and panics when they overflow (fuzzer finding):
        // such words are not handed to it.
        if has_overflowing_number(raw) || has_unbalanced_subscript(raw) {
            w.unparsed = true;
            w.segs.push(Seg::Dynamic);
            return w;
        }
        // Contain any other panic of the word parser (treated as unparsed).
        let parsed = std::panic::catch_unwind(|| bw::parse(raw, &options()));
        match parsed {
            Ok(Ok(pieces)) => {
                for p in &pieces {
                    w.piece(&p.piece, p.start_index, false);
                }
            }
            _ => {
                w.unparsed = true;
                w.segs.push(Seg::Dynamic);
            }
        }
        if raw.contains('\\') || raw.contains('\'') || raw.contains('"') {
            w.quoted = true;
        }
        w.brace = has_brace_expansion(&w.segs);
        w
    }

    /// Analyze the body of a heredoc whose delimiter is unquoted: only
    /// substitutions matter (its text is data).
    pub fn analyze_heredoc(raw: &str, start: usize) -> Word {
        let mut w = Word::proc_subst(raw, start);
        w.proc_subst = false;
        match std::panic::catch_unwind(|| bw::parse_heredoc(raw, &options())) {
            Ok(Ok(pieces)) => {
                for p in &pieces {
                    w.piece(&p.piece, p.start_index, true);
                }
            }
            _ => w.unparsed = true,
        }
        w
    }

    /// A word made of static text (a value glued inside another word, such
    /// as the `FILE` of `--output=FILE`); `glob` when the text came from an
    /// unquoted part that bash would glob.
    pub fn static_text(text: &str, start: usize, glob: bool) -> Word {
        Word {
            raw: text.to_string(),
            start,
            segs: vec![Seg::Lit {
                text: text.to_string(),
                quoted: !glob,
            }],
            substs: Vec::new(),
            quoted: !glob,
            glob: glob && text.contains(['*', '?', '[']),
            brace: false,
            unparsed: false,
            proc_subst: false,
            evals: Vec::new(),
            params: Vec::new(),
        }
    }

    /// Whether this is the placeholder of an input process substitution
    /// (`<( … )`): bash passes the name of a pipe (`/dev/fd/N`) whose
    /// writer is the substituted command, gated on its own.
    pub fn is_input_proc_subst(&self) -> bool {
        self.proc_subst && self.raw.starts_with("<(")
    }

    /// Placeholder for a `<( … )` / `>( … )` argument.
    pub fn proc_subst(raw: &str, start: usize) -> Word {
        Word {
            raw: raw.to_string(),
            start,
            segs: vec![Seg::Dynamic],
            substs: Vec::new(),
            quoted: false,
            glob: false,
            brace: false,
            unparsed: false,
            proc_subst: true,
            evals: Vec::new(),
            params: Vec::new(),
        }
    }

    fn piece(&mut self, piece: &WordPiece, offset: usize, in_dq: bool) {
        match piece {
            WordPiece::Text(t) => {
                if in_dq {
                    // Inside double quotes a backslash-newline is removed.
                    let text = t.replace("\\\n", "");
                    self.push_lit(&text, true);
                } else {
                    if t.contains(['*', '?'])
                        || (t.contains('[') && t[t.find('[').unwrap_or(0)..].contains(']'))
                    {
                        self.glob = true;
                    }
                    self.push_lit(t, false);
                }
            }
            WordPiece::SingleQuotedText(t) => self.push_lit(t, true),
            WordPiece::AnsiCQuotedText(t) => {
                let decoded = decode_ansi_c(t);
                self.push_lit(&decoded, true)
            }
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                // An empty "" still yields an (empty) quoted literal.
                self.push_lit("", true);
                for p in inner {
                    self.piece(&p.piece, p.start_index, true);
                }
            }
            WordPiece::EscapeSequence(s) => {
                let rest: String = s.chars().skip(1).collect();
                // A backslash-newline is a line continuation: nothing.
                if rest != "\n" {
                    self.push_lit(&rest, true);
                }
            }
            WordPiece::TildeExpansion(t) => match t {
                TildeExpr::Home => self.segs.push(Seg::Home),
                // `~+` is `$PWD` (rt28b: `cd && rm -rf ~+`).
                TildeExpr::WorkingDir => {
                    self.params.push(Param {
                        seg: self.segs.len(),
                        name: "PWD".to_string(),
                        quoted: true,
                        nonempty: false,
                    });
                    self.segs.push(Seg::Dynamic);
                }
                _ => self.segs.push(Seg::Dynamic),
            },
            WordPiece::ParameterExpansion(expr) => {
                if let Some((name, nonempty)) = value_of_name(expr) {
                    if name == "HOME" {
                        self.segs.push(Seg::Home);
                        if nonempty {
                            // The default or message is not used (HOME is
                            // set), but walked all the same.
                            self.note_evals(expr);
                            for nested in parameter_nested_text(expr) {
                                self.nested_word(nested, offset);
                            }
                        }
                        return;
                    }
                    self.params.push(Param {
                        seg: self.segs.len(),
                        name: name.to_string(),
                        quoted: in_dq,
                        nonempty,
                    });
                }
                self.segs.push(Seg::Dynamic);
                self.note_evals(expr);
                for nested in parameter_nested_text(expr) {
                    self.nested_word(nested, offset);
                    // What `extquote` decodes runs too: its substitutions
                    // are walked (hard deny sees `$'\x24(rm -rf ~)'`).
                    if nested.contains("$'") && is_value_word_op(expr) {
                        let decoded = decode_ansi_c_quotes(nested);
                        self.nested_word(&decoded, offset);
                    }
                }
            }
            WordPiece::CommandSubstitution(text)
            | WordPiece::BackquotedCommandSubstitution(text)
                if matches!(text.trim(), "pwd" | "pwd -L" | "builtin pwd") =>
            {
                // `$(pwd)`: the logical working directory, like `$PWD`.
                self.params.push(Param {
                    seg: self.segs.len(),
                    name: PWD_SUBST.to_string(),
                    quoted: in_dq,
                    nonempty: false,
                });
                self.segs.push(Seg::Dynamic);
                self.push_subst(piece, text, offset);
            }
            WordPiece::CommandSubstitution(text)
            | WordPiece::BackquotedCommandSubstitution(text)
                if echoes_home(text) || echoed_word(text).is_some() =>
            {
                // `$(echo ~)`, `$(echo /)`: still a command substitution
                // for the decision (shared cases adv-233, cx-010), but its
                // output is known for hard deny (rt28a/rt28b).
                let value = if echoes_home(text) {
                    "~"
                } else {
                    echoed_word(text).unwrap_or_default()
                };
                self.params.push(Param {
                    seg: self.segs.len(),
                    name: format!("{ECHO_SUBST}{value}"),
                    quoted: true,
                    nonempty: false,
                });
                self.segs.push(Seg::Dynamic);
                self.push_subst(piece, text, offset);
            }
            WordPiece::CommandSubstitution(text) => {
                self.segs.push(Seg::Dynamic);
                self.substs.push(Subst {
                    kind: SubstKind::Command,
                    text: text.clone(),
                    offset,
                });
            }
            WordPiece::BackquotedCommandSubstitution(text) => {
                self.segs.push(Seg::Dynamic);
                self.substs.push(Subst {
                    kind: SubstKind::Backtick,
                    text: text.clone(),
                    offset,
                });
            }
            WordPiece::ArithmeticExpression(expr) => {
                self.segs.push(Seg::Dynamic);
                self.evals.push(Eval::Arith(expr.value.clone()));
                self.nested_word(&expr.value, offset);
            }
        }
    }

    /// A command substitution's text, `$( )` or backquoted as `piece` is.
    fn push_subst(&mut self, piece: &WordPiece, text: &str, offset: usize) {
        let kind = if matches!(piece, WordPiece::CommandSubstitution(_)) {
            SubstKind::Command
        } else {
            SubstKind::Backtick
        };
        self.substs.push(Subst {
            kind,
            text: text.to_string(),
            offset,
        });
    }

    /// Record what a parameter expansion makes bash evaluate again.
    fn note_evals(&mut self, expr: &ParameterExpr) {
        if parameter_indirect(expr) {
            self.evals.push(Eval::Indirect);
        }
        if let ParameterExpr::Transform { op, .. } = expr {
            use brush_parser::word::ParameterTransformOp as T;
            if matches!(
                op,
                T::PromptExpand
                    | T::ExpandEscapeSequences
                    | T::ToAssignmentLogic
                    | T::PossiblyQuoteWithArraysExpanded { .. }
            ) {
                self.evals.push(Eval::Transform);
            }
        }
        if let ParameterExpr::AssignDefaultValues {
            parameter: Parameter::Named(name),
            ..
        } = expr
        {
            self.evals.push(Eval::Assign(name.clone()));
        }
        if let ParameterExpr::Substring { offset, length, .. } = expr {
            self.evals.push(Eval::Arith(offset.value.clone()));
            if let Some(l) = length {
                self.evals.push(Eval::Arith(l.value.clone()));
            }
        }
        if let Some(Parameter::NamedWithIndex { index, .. }) = parameter_of(expr) {
            self.evals.push(Eval::Arith(index.clone()));
        }
        for text in parameter_nested_text(expr) {
            // Unquoted, an operator's word also runs a process
            // substitution (`echo ${x:-<(rm f)}` runs `rm f`). And with
            // `extquote` (bash's default) a `$'…'` or `$"…"` in the word is
            // decoded first, even inside double quotes, so its escapes can
            // spell a substitution that then runs (rt12 S9:
            // `"${x:-$'\x24(touch f)'}"` runs `touch f`).
            let spells_subst = |t: &str| {
                t.contains("$(") || t.contains('`') || t.contains("<(") || t.contains(">(")
            };
            // (Only the operators whose word is the expansion's value:
            // a pattern's decoded text is matched, not run again.)
            let value_word = is_value_word_op(expr);
            // What `$'…'` decodes to joins the text around it (`$'\x24'"(id)"`
            // is `$(id)`, rt12z Z4): any `$`, backquote or `<`/`>` it
            // yields counts.
            let decodes_subst = |t: &str| {
                decoded_ansi_c_parts(t)
                    .iter()
                    .any(|d| d.contains(['$', '`', '<', '>']))
            };
            if spells_subst(text)
                || (value_word
                    && ((text.contains("$'") && decodes_subst(text)) || text.contains("$\"")))
            {
                self.evals.push(Eval::OperatorSubst);
            }
        }
    }

    /// Text nested in an expansion (`${x:-…}`, `$(( … ))`, `${a[…]}`) may
    /// hold substitutions the shell runs: find them.
    fn nested_word(&mut self, text: &str, offset: usize) {
        if !text.contains(['$', '`']) {
            return;
        }
        if has_overflowing_number(text) || has_unbalanced_subscript(text) {
            self.unparsed = true;
            return;
        }
        match std::panic::catch_unwind(|| bw::parse(text, &options())) {
            Ok(Ok(pieces)) => {
                let mut inner = Word::analyze("", 0);
                for p in &pieces {
                    inner.piece(&p.piece, p.start_index, false);
                }
                for mut s in inner.substs {
                    s.offset = offset;
                    self.substs.push(s);
                }
                self.evals.extend(inner.evals);
                if inner.unparsed {
                    self.unparsed = true;
                }
            }
            _ => self.unparsed = true,
        }
    }

    fn push_lit(&mut self, text: &str, quoted: bool) {
        if quoted {
            self.quoted = true;
        }
        if let Some(Seg::Lit {
            text: prev,
            quoted: q,
        }) = self.segs.last_mut()
        {
            if *q == quoted {
                prev.push_str(text);
                return;
            }
        }
        self.segs.push(Seg::Lit {
            text: text.to_string(),
            quoted,
        });
    }

    /// Fully static: only literal pieces (no home, no dynamic piece, no
    /// brace expansion). Its value is then exactly what bash passes.
    pub fn literal(&self) -> Option<String> {
        self.lit().map(std::borrow::Cow::into_owned)
    }

    /// [`Word::literal`] without a copy when the value is one piece.
    pub fn lit(&self) -> Option<std::borrow::Cow<'_, str>> {
        if self.brace || self.unparsed || self.proc_subst {
            return None;
        }
        match self.segs.as_slice() {
            [] => Some(std::borrow::Cow::Borrowed("")),
            [Seg::Lit { text, .. }] => Some(std::borrow::Cow::Borrowed(text)),
            segs => {
                let mut out = String::new();
                for s in segs {
                    match s {
                        Seg::Lit { text, .. } => out.push_str(text),
                        _ => return None,
                    }
                }
                Some(std::borrow::Cow::Owned(out))
            }
        }
    }

    /// Whether the value is fully static ([`Word::literal`] is `Some`).
    pub fn is_literal(&self) -> bool {
        !(self.brace || self.unparsed || self.proc_subst)
            && self.segs.iter().all(|s| matches!(s, Seg::Lit { .. }))
    }

    /// The value with `~`/`$HOME` replaced by `home`, when nothing else is
    /// dynamic.
    pub fn expanded(&self, home: &str) -> Option<String> {
        if self.brace || self.unparsed || self.proc_subst {
            return None;
        }
        let mut out = String::new();
        for s in &self.segs {
            match s {
                Seg::Lit { text, .. } => out.push_str(text),
                Seg::Home => out.push_str(home),
                Seg::Dynamic => return None,
            }
        }
        Some(out)
    }

    /// The static text before the first dynamic piece (home expanded), and
    /// whether the word is dynamic at all.
    pub fn static_prefix(&self, home: &str) -> (String, bool) {
        let mut out = String::new();
        for s in &self.segs {
            match s {
                Seg::Lit { text, .. } => out.push_str(text),
                Seg::Home => out.push_str(home),
                Seg::Dynamic => return (out, true),
            }
        }
        (out, self.brace || self.unparsed || self.proc_subst)
    }

    /// Static value used for display-free decisions; dynamic pieces are
    /// dropped. Only meaningful together with [`Word::literal`].
    pub fn lossy_value(&self) -> String {
        if let [Seg::Lit { text, .. }] = self.segs.as_slice() {
            return text.clone();
        }
        let mut out = String::new();
        for s in &self.segs {
            match s {
                Seg::Lit { text, .. } => out.push_str(text),
                Seg::Home => out.push('~'),
                Seg::Dynamic => {}
            }
        }
        out
    }

    /// Fully static and written without any quote or escape.
    pub fn is_plain(&self) -> bool {
        !self.quoted && self.is_literal()
    }

    /// Whether any piece is dynamic.
    pub fn is_dynamic(&self) -> bool {
        self.brace
            || self.unparsed
            || self.proc_subst
            || self.segs.iter().any(|s| matches!(s, Seg::Dynamic))
    }

    /// Whether the source text contains a CR or LF.
    pub fn has_line_break(&self) -> bool {
        self.raw.contains(['\n', '\r'])
    }
}

/// A parameter expansion with more `[` than `]` (`${a[b}`): brush's word
/// parser backtracks exponentially on repeats of it (fuzzer finding:
/// six of them took over 10 s).
/// Text bash reads as itself in any word position: letters, digits and
/// `._/+,%@-=:` only (no quote, escape, expansion, glob, brace, tilde,
/// operator or blank), not empty. The word parser returns it as one
/// unquoted text piece (a test compares the two on every word of the
/// corpora).
fn is_plain_text(raw: &str) -> bool {
    !raw.is_empty()
        && raw.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'.' | b'_' | b'/' | b'+' | b',' | b'%' | b'@' | b'-' | b'=' | b':'
                )
        })
}

fn has_unbalanced_subscript(raw: &str) -> bool {
    raw.contains("${") && raw.matches('[').count() > raw.matches(']').count()
}

/// A run of 18+ digits in a word that also has `~` or `{`.
fn has_overflowing_number(raw: &str) -> bool {
    if !raw.contains(['~', '{']) {
        return false;
    }
    let mut run = 0;
    for c in raw.chars() {
        if c.is_ascii_digit() {
            run += 1;
            if run >= 18 {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

fn options() -> ParserOptions {
    parser_options()
}

/// Parser options: bash defaults for a non-interactive shell (extended
/// globbing off — it is off in `bash -c`, and its pattern syntax is a
/// source of parser backtracking).
pub fn parser_options() -> ParserOptions {
    ParserOptions {
        enable_extended_globbing: false,
        ..ParserOptions::default()
    }
}

/// The parameter of an expansion (`None` for `${!prefix*}`, `${!a[@]}`).
fn parameter_of(expr: &ParameterExpr) -> Option<&Parameter> {
    use ParameterExpr as P;
    match expr {
        P::Parameter { parameter, .. }
        | P::UseDefaultValues { parameter, .. }
        | P::AssignDefaultValues { parameter, .. }
        | P::IndicateErrorIfNullOrUnset { parameter, .. }
        | P::UseAlternativeValue { parameter, .. }
        | P::ParameterLength { parameter, .. }
        | P::RemoveSmallestSuffixPattern { parameter, .. }
        | P::RemoveLargestSuffixPattern { parameter, .. }
        | P::RemoveSmallestPrefixPattern { parameter, .. }
        | P::RemoveLargestPrefixPattern { parameter, .. }
        | P::Substring { parameter, .. }
        | P::Transform { parameter, .. }
        | P::UppercaseFirstChar { parameter, .. }
        | P::UppercasePattern { parameter, .. }
        | P::LowercaseFirstChar { parameter, .. }
        | P::LowercasePattern { parameter, .. }
        | P::ReplaceSubstring { parameter, .. } => Some(parameter),
        P::VariableNames { .. } | P::MemberKeys { .. } => None,
    }
}

/// Whether the expansion dereferences its value as another name (`${!v}`).
fn parameter_indirect(expr: &ParameterExpr) -> bool {
    use ParameterExpr as P;
    match expr {
        P::Parameter { indirect, .. }
        | P::UseDefaultValues { indirect, .. }
        | P::AssignDefaultValues { indirect, .. }
        | P::IndicateErrorIfNullOrUnset { indirect, .. }
        | P::UseAlternativeValue { indirect, .. }
        | P::ParameterLength { indirect, .. }
        | P::RemoveSmallestSuffixPattern { indirect, .. }
        | P::RemoveLargestSuffixPattern { indirect, .. }
        | P::RemoveSmallestPrefixPattern { indirect, .. }
        | P::RemoveLargestPrefixPattern { indirect, .. }
        | P::Substring { indirect, .. }
        | P::Transform { indirect, .. }
        | P::UppercaseFirstChar { indirect, .. }
        | P::UppercasePattern { indirect, .. }
        | P::LowercaseFirstChar { indirect, .. }
        | P::LowercasePattern { indirect, .. }
        | P::ReplaceSubstring { indirect, .. } => *indirect,
        // `${!prefix*}` lists names; `${!a[@]}` lists keys: no value is
        // dereferenced.
        P::VariableNames { .. } | P::MemberKeys { .. } => false,
    }
}

/// A parameter expansion whose value is a name's own value: `$NAME`,
/// `${NAME}`, and (`true`: only when that value is not empty) `${NAME:-…}`,
/// `${NAME:=…}`, `${NAME:?…}` and their forms without `:`; for `HOME`
/// also a removal of trailing slashes (`${HOME%/}`: the home has none).
fn value_of_name(expr: &ParameterExpr) -> Option<(&str, bool)> {
    use ParameterExpr as P;
    match expr {
        P::Parameter {
            parameter: Parameter::Named(n),
            indirect: false,
        } => Some((n, false)),
        P::Parameter {
            parameter: Parameter::Positional(k @ 1..=9),
            indirect: false,
        } => Some((POSITIONAL[*k as usize - 1], false)),
        P::UseDefaultValues {
            parameter: Parameter::Named(n),
            indirect: false,
            ..
        }
        | P::AssignDefaultValues {
            parameter: Parameter::Named(n),
            indirect: false,
            ..
        }
        | P::IndicateErrorIfNullOrUnset {
            parameter: Parameter::Named(n),
            indirect: false,
            ..
        } => Some((n, true)),
        P::RemoveSmallestSuffixPattern {
            parameter: Parameter::Named(n),
            indirect: false,
            pattern: Some(p),
        }
        | P::RemoveLargestSuffixPattern {
            parameter: Parameter::Named(n),
            indirect: false,
            pattern: Some(p),
        } if n == "HOME" && !p.is_empty() && p.chars().all(|c| c == '/') => Some((n, true)),
        _ => None,
    }
}

/// `echo ~`, `echo $HOME` and the like: a command substitution printing
/// the home directory.
fn echoes_home(text: &str) -> bool {
    let t = text.trim();
    let Some(arg) = t
        .strip_prefix("echo")
        .filter(|r| r.starts_with([' ', '\t']))
    else {
        return false;
    };
    matches!(
        arg.trim(),
        "~" | "$HOME" | "${HOME}" | "\"$HOME\"" | "\"${HOME}\"" | "~/"
    )
}

/// `echo WORD` printing one plain path-like word (`$(echo /)`): the word.
fn echoed_word(text: &str) -> Option<&str> {
    let arg = text.trim().strip_prefix("echo ")?.trim();
    (!arg.is_empty()
        && !arg.starts_with('-')
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-')))
    .then_some(arg)
}

fn parameter_nested_text(expr: &ParameterExpr) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    let param = match expr {
        ParameterExpr::Parameter { parameter, .. }
        | ParameterExpr::ParameterLength { parameter, .. }
        | ParameterExpr::Transform { parameter, .. } => parameter,
        ParameterExpr::UseDefaultValues {
            parameter,
            default_value,
            ..
        }
        | ParameterExpr::AssignDefaultValues {
            parameter,
            default_value,
            ..
        } => {
            out.extend(default_value.as_deref());
            parameter
        }
        ParameterExpr::IndicateErrorIfNullOrUnset {
            parameter,
            error_message,
            ..
        } => {
            out.extend(error_message.as_deref());
            parameter
        }
        ParameterExpr::UseAlternativeValue {
            parameter,
            alternative_value,
            ..
        } => {
            out.extend(alternative_value.as_deref());
            parameter
        }
        ParameterExpr::RemoveSmallestSuffixPattern {
            parameter, pattern, ..
        }
        | ParameterExpr::RemoveLargestSuffixPattern {
            parameter, pattern, ..
        }
        | ParameterExpr::RemoveSmallestPrefixPattern {
            parameter, pattern, ..
        }
        | ParameterExpr::RemoveLargestPrefixPattern {
            parameter, pattern, ..
        }
        | ParameterExpr::UppercaseFirstChar {
            parameter, pattern, ..
        }
        | ParameterExpr::UppercasePattern {
            parameter, pattern, ..
        }
        | ParameterExpr::LowercaseFirstChar {
            parameter, pattern, ..
        }
        | ParameterExpr::LowercasePattern {
            parameter, pattern, ..
        } => {
            out.extend(pattern.as_deref());
            parameter
        }
        ParameterExpr::Substring {
            parameter,
            offset,
            length,
            ..
        } => {
            out.push(&offset.value);
            if let Some(l) = length {
                out.push(&l.value);
            }
            parameter
        }
        ParameterExpr::ReplaceSubstring {
            parameter,
            pattern,
            replacement,
            ..
        } => {
            out.push(pattern);
            out.extend(replacement.as_deref());
            parameter
        }
        ParameterExpr::VariableNames { .. } | ParameterExpr::MemberKeys { .. } => return out,
    };
    if let Parameter::NamedWithIndex { index, .. } = param {
        out.push(index);
    }
    out
}

/// Unquoted `{a,b}` or `{x..y}` in literal text (bash brace expansion).
fn has_brace_expansion(segs: &[Seg]) -> bool {
    for s in segs {
        if let Seg::Lit {
            text,
            quoted: false,
        } = s
        {
            let mut depth = 0usize;
            let mut opened_at: Vec<usize> = Vec::new();
            for (i, c) in text.char_indices() {
                match c {
                    '{' => {
                        depth += 1;
                        opened_at.push(i);
                    }
                    '}' if depth > 0 => {
                        depth -= 1;
                        if let Some(o) = opened_at.pop() {
                            let inner = &text[o + 1..i];
                            if inner.contains(',') || inner.contains("..") {
                                return true;
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    false
}

/// `${x:-w}`, `${x=w}`, `${x:?w}`, `${x:+w}`: the operators whose word
/// becomes the expansion's value (decoded by `extquote`, then expanded).
fn is_value_word_op(expr: &ParameterExpr) -> bool {
    use ParameterExpr as P;
    matches!(
        expr,
        P::UseDefaultValues { .. }
            | P::AssignDefaultValues { .. }
            | P::IndicateErrorIfNullOrUnset { .. }
            | P::UseAlternativeValue { .. }
    )
}

/// What each `$'…'` of `text` decodes to.
fn decoded_ansi_c_parts(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("$'") {
        let body = &rest[at + 2..];
        let mut end = None;
        let mut escaped = false;
        for (i, c) in body.char_indices() {
            match c {
                '\\' if !escaped => escaped = true,
                '\'' if !escaped => {
                    end = Some(i);
                    break;
                }
                _ => escaped = false,
            }
        }
        match end {
            Some(e) => {
                out.push(decode_ansi_c(&body[..e]));
                rest = &body[e + 1..];
            }
            None => {
                // Unterminated: counted as anything.
                out.push("$".to_string());
                break;
            }
        }
    }
    out
}

/// `text` with each `$'…'` replaced by what it decodes to (the rest as
/// written).
fn decode_ansi_c_quotes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("$'") {
        out.push_str(&rest[..at]);
        let body = &rest[at + 2..];
        // The closing quote: the first `'` not escaped by a backslash.
        let mut end = None;
        let mut escaped = false;
        for (i, c) in body.char_indices() {
            match c {
                '\\' if !escaped => escaped = true,
                '\'' if !escaped => {
                    end = Some(i);
                    break;
                }
                _ => escaped = false,
            }
        }
        match end {
            Some(e) => {
                out.push_str(&decode_ansi_c(&body[..e]));
                rest = &body[e + 1..];
            }
            None => {
                out.push_str(&rest[at..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Decode the body of a `$'…'` string as bash does.
pub fn decode_ansi_c(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '\\' || i + 1 >= chars.len() {
            out.push(c);
            i += 1;
            continue;
        }
        let e = chars[i + 1];
        i += 2;
        match e {
            'a' => out.push('\u{07}'),
            'b' => out.push('\u{08}'),
            'e' | 'E' => out.push('\u{1B}'),
            'f' => out.push('\u{0C}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{0B}'),
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            '?' => out.push('?'),
            '0'..='7' => {
                let mut v: u32 = e.to_digit(8).unwrap_or(0);
                let mut n = 1;
                while n < 3 && i < chars.len() {
                    match chars[i].to_digit(8) {
                        Some(d) => {
                            v = v * 8 + d;
                            i += 1;
                            n += 1;
                        }
                        None => break,
                    }
                }
                push_code(&mut out, v & 0xFF);
            }
            'x' | 'u' | 'U' => {
                let max = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut v: u32 = 0;
                let mut n = 0;
                while n < max && i < chars.len() {
                    match chars[i].to_digit(16) {
                        Some(d) => {
                            v = v.wrapping_mul(16).wrapping_add(d);
                            i += 1;
                            n += 1;
                        }
                        None => break,
                    }
                }
                if n == 0 {
                    out.push('\\');
                    out.push(e);
                } else {
                    push_code(&mut out, v);
                }
            }
            'c' => {
                if i < chars.len() {
                    let ctl = (chars[i] as u32) & 0x1F;
                    push_code(&mut out, ctl);
                    i += 1;
                } else {
                    out.push('\\');
                    out.push('c');
                }
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    // A NUL ends the string: bash's words are C strings (`$'/\x00x'` is
    // `/`, rt12 S10).
    if let Some(end) = out.find('\0') {
        out.truncate(end);
    }
    out
}

fn push_code(out: &mut String, v: u32) {
    match char::from_u32(v) {
        Some(c) => out.push(c),
        None => out.push('\u{FFFD}'),
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn plain_words_read_as_the_parser_reads_them() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpora");
        let mut seen = 0;
        let extra = "a=b x:y --opt=1,2 @x +x %x a.b/c -- - = : . .. / 0 9z-";
        let mut texts = vec![extra.to_string()];
        for f in ["nl2bash.cmds", "tldr.cmds"] {
            texts.push(std::fs::read_to_string(format!("{root}/{f}")).unwrap_or_default());
        }
        for t in &texts {
            for raw in t.split_whitespace().filter(|r| is_plain_text(r)) {
                assert_eq!(Word::analyze(raw, 3), Word::analyze_parsed(raw, 3), "{raw}");
                seen += 1;
            }
        }
        assert!(seen > 15, "{seen}");
    }
    use super::*;

    fn lit(raw: &str) -> Option<String> {
        Word::analyze(raw, 0).literal()
    }

    #[test]
    fn decodes_like_bash() {
        assert_eq!(lit("\\rm").as_deref(), Some("rm"));
        assert_eq!(lit("r''m").as_deref(), Some("rm"));
        assert_eq!(lit("$'\\x72m'").as_deref(), Some("rm"));
        assert_eq!(lit("$'/\\x00x'").as_deref(), Some("/"));
        assert_eq!(lit("x$'\\0'y").as_deref(), Some("xy"));
        assert_eq!(lit("\"r\"m").as_deref(), Some("rm"));
        assert_eq!(lit("\"a\\$b\\q\"").as_deref(), Some("a$b\\q"));
        assert_eq!(lit("r\\m").as_deref(), Some("rm"));
        assert_eq!(lit("'~'").as_deref(), Some("~"));
    }

    #[test]
    fn dynamic_pieces() {
        assert!(Word::analyze("$X", 0).literal().is_none());
        assert!(Word::analyze("{rm,-rf}", 0).brace);
        assert!(!Word::analyze("{}", 0).brace);
        let w = Word::analyze("~/x", 0);
        assert_eq!(w.expanded("/h").as_deref(), Some("/h/x"));
        let w = Word::analyze("\"$HOME\"/x", 0);
        assert_eq!(w.expanded("/h").as_deref(), Some("/h/x"));
        let w = Word::analyze("${x:+$(rm -rf x)}", 0);
        assert_eq!(w.substs.len(), 1);
        assert_eq!(w.substs[0].text, "rm -rf x");
        let w = Word::analyze("$((1+$(id)))", 0);
        assert_eq!(w.substs.len(), 1);
        let w = Word::analyze("${a[$(id)]}", 0);
        assert_eq!(w.substs.len(), 1);
    }

    #[test]
    fn overflowing_numbers_are_unparsed_not_panics() {
        // Fuzzer findings: brush-parser unwrapped these.
        assert!(Word::analyze("~+99999999999999999999", 0).unparsed);
        assert!(Word::analyze("~-99999999999999999999/x", 0).unparsed);
        assert!(Word::analyze("{1..99999999999999999999}", 0).unparsed);
        assert!(!Word::analyze("~/x", 0).unparsed);
        assert!(Word::analyze("${a[b}/${a[b}/${a[b}/${a[b}/${a[b}/${a[b}", 0).unparsed);
        assert!(!Word::analyze("${a[0]}", 0).unparsed);
    }

    #[test]
    fn ansi_c() {
        assert_eq!(decode_ansi_c("a\\tb\\n"), "a\tb\n");
        assert_eq!(decode_ansi_c("\\101\\u00e9"), "Aé");
        assert_eq!(decode_ansi_c("\\cA"), "\u{01}");
    }
}
