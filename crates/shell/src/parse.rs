//! Adapter from brush-parser's AST to the project's own syntax tree
//! (`syntax`). This is the only module that knows the parser crate's tree
//! types; swapping the parser means rewriting this file.
//!
//! Deep nesting is refused *before* parsing (SPEC §3.1): the parser recurses
//! per nesting level and would overflow the stack on hostile input.

use brush_parser::ast;
use brush_parser::Parser;

use crate::syntax::*;
use crate::word::Word;

/// Raw bracket nesting above which the text is not handed to the parser.
/// brush-parser backtracks exponentially on unclosed parentheses (found by
/// fuzzing: 27 unclosed `(` took seconds), so the limit is kept low; the
/// analysis follows nesting to depth 8 anyway.
pub const MAX_RAW_NESTING: usize = 12;

/// Why a text could not be turned into a [`Script`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseFailure {
    /// Syntax error, unterminated input, unsupported construct.
    Syntax(String),
    /// Nesting deeper than the parser may safely recurse.
    TooDeep,
}

/// Parse `src` into a [`Script`]. Positions are offset by `base` characters.
pub fn parse(src: &str, base: usize) -> Result<Script, ParseFailure> {
    if raw_nesting(src) > MAX_RAW_NESTING {
        return Err(ParseFailure::TooDeep);
    }
    if src.contains('\0') {
        // No shell command can contain a NUL byte.
        return Err(ParseFailure::Syntax("NUL byte".into()));
    }
    if src.contains('$') && src.matches('[').count() > src.matches(']').count() {
        // brush-parser 0.4 backtracks exponentially on unbalanced `[` around
        // expansions (`${a[b`, `$(x[`…; fuzzer findings).
        return Err(ParseFailure::Syntax(
            "unbalanced '[' next to an expansion".into(),
        ));
    }
    if has_empty_heredoc_delimiter(src) {
        // brush-parser 0.4 loops forever on `<<""` (fuzzer finding).
        return Err(ParseFailure::Syntax("empty here-document delimiter".into()));
    }
    if has_unterminated_heredoc(src) {
        // brush-parser 0.4 allocates without bound on `$(cat <<  EOF ` with
        // no line after it (fuzzer finding); bash itself has no body to read.
        return Err(ParseFailure::Syntax("here-document without a body".into()));
    }
    if src.contains("$[") {
        // Deprecated `$[ ]` arithmetic: brush-parser loops on `<<` inside it
        // (fuzzer finding); bash documents `$(( ))` instead.
        return Err(ParseFailure::Syntax("deprecated $[ ] arithmetic".into()));
    }
    if has_oversized_io_number(src) {
        // brush-parser 0.4 unwraps the fd number of `NNNN<` as an i32 and
        // panics on overflow (found by fuzzing): refuse it as a syntax error.
        return Err(ParseFailure::Syntax(
            "file descriptor number out of range".into(),
        ));
    }
    let options = crate::word::parser_options();
    // A panic inside the parser must never take the gate down (a crashed
    // hook lets the command through on most hosts): contain it.
    let parsed = std::panic::catch_unwind(|| {
        let mut parser = Parser::new(src.as_bytes(), &options);
        parser.parse_program()
    });
    let program = match parsed {
        Ok(r) => r.map_err(|e| ParseFailure::Syntax(e.to_string()))?,
        Err(_) => {
            return Err(ParseFailure::Syntax(
                "the parser failed on this input".into(),
            ))
        }
    };
    let conv = Converter::new(src, base);
    let mut script = Script::default();
    for cc in &program.complete_commands {
        conv.list_into(cc, &mut script)?;
    }
    Ok(script)
}

/// `<<` (or `<<-`) whose delimiter is empty once quotes are removed and
/// ASCII whitespace trimmed (`<<""`, `<<''`, `<<$'\r'`, `<<` + CR): brush
/// 0.4 loops (and allocates) forever on those.
fn has_empty_heredoc_delimiter(src: &str) -> bool {
    let b = src.as_bytes();
    let mut i = 0;
    while i + 1 < b.len() {
        if !(b[i] == b'<' && b[i + 1] == b'<') {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        if j < b.len() && b[j] == b'<' {
            // here-string
            i = j + 1;
            continue;
        }
        if j < b.len() && b[j] == b'-' {
            j += 1;
        }
        while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
            j += 1;
        }
        let start = j;
        while j < b.len()
            && !matches!(
                b[j],
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
            )
        {
            j += 1;
        }
        let word = &b[start..j];
        let meaningful = word
            .iter()
            .any(|c| !matches!(c, b'"' | b'\'' | b'$' | b'\\') && !c.is_ascii_whitespace());
        // No delimiter at all (end of input or a newline right after the
        // operator) is a syntax error in bash; inside `$[ ]` or `$( )`
        // brush loops on it (fuzzer finding), so refuse it here too.
        if !meaningful {
            return true;
        }
        i = j.max(i + 2);
    }
    false
}

/// A here-document operator with no line after it (so no body can
/// follow), outside quotes and arithmetic (where `<<` is a shift). Quotes
/// are followed well enough to ignore `<<` in quoted text.
fn has_unterminated_heredoc(src: &str) -> bool {
    #[derive(PartialEq)]
    enum Ctx {
        Code,
        Double,
    }
    let chars: Vec<char> = src.chars().collect();
    let mut stack: Vec<Ctx> = vec![Ctx::Code];
    let mut subst_depth = 0usize;
    let mut arith_depth = 0usize;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let top_is_code = stack.last() == Some(&Ctx::Code);
        match c {
            '\\' => i += 1,
            '\'' if top_is_code => {
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
            }
            '"' if top_is_code => stack.push(Ctx::Double),
            '"' => {
                stack.pop();
                if stack.is_empty() {
                    stack.push(Ctx::Code);
                }
            }
            '$' if chars.get(i + 1) == Some(&'(') && chars.get(i + 2) == Some(&'(') => {
                arith_depth += 1;
                i += 2;
            }
            '(' if top_is_code && chars.get(i + 1) == Some(&'(') => {
                arith_depth += 1;
                i += 1;
            }
            ')' if arith_depth > 0 && chars.get(i + 1) == Some(&')') => {
                arith_depth -= 1;
                i += 1;
            }
            '$' if chars.get(i + 1) == Some(&'(') => {
                stack.push(Ctx::Code);
                subst_depth += 1;
                i += 1;
            }
            ')' if top_is_code && subst_depth > 0 => {
                stack.pop();
                subst_depth -= 1;
                if stack.is_empty() {
                    stack.push(Ctx::Code);
                }
            }
            '<' if chars.get(i + 1) == Some(&'<') && chars.get(i + 2) == Some(&'<') => {
                // here-string
                i += 2;
            }
            '<' if top_is_code && arith_depth == 0 && chars.get(i + 1) == Some(&'<') => {
                if !chars[i..].contains(&'\n') {
                    return true;
                }
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// A run of more than 9 digits directly before a redirect operator.
fn has_oversized_io_number(src: &str) -> bool {
    let mut run = 0usize;
    for c in src.chars() {
        if c.is_ascii_digit() {
            run += 1;
        } else {
            if run > 9 && (c == '<' || c == '>') {
                return true;
            }
            run = 0;
        }
    }
    false
}

/// Maximum nesting of `(`/`$(`/`{`/`` ` ``, each kind closed only by its
/// own closer. Quotes are deliberately ignored: brush's tokenizer does not
/// honour them everywhere (inside backquotes, after an unterminated quote)
/// and backtracks through what they enclose (fuzzer findings), so text in
/// quotes counts too. Escaped characters do not.
pub fn raw_nesting(src: &str) -> usize {
    let mut parens: usize = 0;
    let mut braces: usize = 0;
    let mut ticks: usize = 0;
    let mut max = 0;
    let mut prev_backslash = false;
    for c in src.chars() {
        if prev_backslash {
            prev_backslash = false;
            continue;
        }
        match c {
            '\\' => prev_backslash = true,
            '(' => parens += 1,
            ')' => parens = parens.saturating_sub(1),
            '{' => braces += 1,
            '}' => braces = braces.saturating_sub(1),
            '`' => ticks = if ticks == 0 { 1 } else { 0 },
            _ => {}
        }
        let depth = parens + braces + ticks;
        // Inside backquotes brush re-tokenizes and backtracks far sooner
        // (fuzzer finding: depth 11 took seconds): weigh it double.
        max = max.max(if ticks > 0 { depth * 2 } else { depth });
    }
    max
}

struct Converter<'a> {
    src: &'a str,
    /// Byte offset of every character (plus the end), for slicing by the
    /// parser's character positions.
    offsets: Vec<usize>,
    base: usize,
}

impl<'a> Converter<'a> {
    fn new(src: &'a str, base: usize) -> Self {
        let mut offsets: Vec<usize> = src.char_indices().map(|(i, _)| i).collect();
        offsets.push(src.len());
        Converter { src, offsets, base }
    }

    fn slice(&self, span: &brush_parser::SourceSpan) -> Option<&'a str> {
        let s = *self.offsets.get(span.start.index)?;
        let e = *self.offsets.get(span.end.index)?;
        self.src.get(s..e)
    }

    /// Whether text touches a process substitution (`x<(…)`, `<(…)y`,
    /// `<(a)<(b)`): bash then passes one word, `x/dev/fd/63`, where the
    /// parser reports separate items. `span` covers the parenthesized list;
    /// the `<` or `>` is the byte before it.
    fn glued(&self, span: &brush_parser::SourceSpan) -> bool {
        let (Some(&s), Some(&e)) = (
            self.offsets.get(span.start.index),
            self.offsets.get(span.end.index),
        ) else {
            return true;
        };
        let before = self
            .src
            .get(..s.saturating_sub(1))
            .and_then(|t| t.chars().next_back());
        let after = self.src.get(e..).and_then(|t| t.chars().next());
        let ends_before = |c: char| c.is_whitespace() || ";&|(<>".contains(c);
        let ends_after = |c: char| c.is_whitespace() || ";&|)<>".contains(c);
        before.is_some_and(|c| !ends_before(c)) || after.is_some_and(|c| !ends_after(c))
    }

    fn pos(&self, loc: &Option<brush_parser::SourceSpan>) -> usize {
        self.base + loc.as_ref().map(|l| l.start.index).unwrap_or(0)
    }

    fn word(&self, w: &ast::Word) -> Word {
        Word::analyze(&w.value, self.pos(&w.loc))
    }

    fn list_into(&self, list: &ast::CompoundList, out: &mut Script) -> Result<(), ParseFailure> {
        for ast::CompoundListItem(and_or, sep) in &list.0 {
            let first = self.pipeline(&and_or.first)?;
            let mut rest = Vec::new();
            for a in &and_or.additional {
                match a {
                    ast::AndOr::And(p) => rest.push((AndOr::And, self.pipeline(p)?)),
                    ast::AndOr::Or(p) => rest.push((AndOr::Or, self.pipeline(p)?)),
                }
            }
            out.items.push(Item {
                first,
                rest,
                background: matches!(sep, ast::SeparatorOperator::Async),
            });
        }
        Ok(())
    }

    fn list(&self, list: &ast::CompoundList) -> Result<Script, ParseFailure> {
        let mut s = Script::default();
        self.list_into(list, &mut s)?;
        Ok(s)
    }

    fn pipeline(&self, p: &ast::Pipeline) -> Result<Pipeline, ParseFailure> {
        let timed = p.timed.as_ref().map(|t| match t {
            ast::PipelineTimed::Timed(_) => false,
            ast::PipelineTimed::TimedWithPosixOutput(_) => true,
        });
        let mut elems: Vec<Elem> = Vec::new();
        for c in &p.seq {
            let cmd = self.command(c)?;
            elems.push(Elem {
                cmd,
                stderr_too: false,
            });
        }
        // `a |& b` arrives as an implicit `2>&1` on `a` (target `Fd`, not a
        // written word): mark the element instead.
        let count = elems.len();
        for (i, e) in elems.iter_mut().enumerate() {
            if i + 1 == count {
                break;
            }
            if let Command::Simple(s) = &mut e.cmd {
                if let Some(pos) = s.redirects.iter().position(|r| r.implicit) {
                    s.redirects.remove(pos);
                    e.stderr_too = true;
                }
            }
        }
        Ok(Pipeline {
            negated: p.bang,
            timed,
            elems,
        })
    }

    fn redirects(&self, list: &Option<ast::RedirectList>) -> Result<Vec<Redirect>, ParseFailure> {
        let mut out = Vec::new();
        if let Some(l) = list {
            for r in &l.0 {
                out.push(self.redirect(r)?);
            }
        }
        Ok(out)
    }

    fn command(&self, c: &ast::Command) -> Result<Command, ParseFailure> {
        match c {
            ast::Command::Simple(s) => Ok(Command::Simple(self.simple(s)?)),
            ast::Command::Compound(cc, redirs) => {
                let redirects = self.redirects(redirs)?;
                self.compound(cc, redirects)
            }
            ast::Command::Function(f) => {
                let ast::FunctionBody(body, redirs) = &f.body;
                let redirects = self.redirects(redirs)?;
                Ok(Command::Function {
                    name: f.fname.value.clone(),
                    body: Box::new(self.compound(body, redirects)?),
                })
            }
            ast::Command::ExtendedTest(t, redirs) => {
                let mut words = Vec::new();
                let mut arith = Vec::new();
                let mut names = Vec::new();
                self.test_words(&t.expr, &mut words, &mut arith, &mut names);
                Ok(Command::Test {
                    words,
                    arith,
                    names,
                    redirects: self.redirects(redirs)?,
                })
            }
        }
    }

    fn test_words(
        &self,
        e: &ast::ExtendedTestExpr,
        out: &mut Vec<Word>,
        arith: &mut Vec<Word>,
        names: &mut Vec<Word>,
    ) {
        match e {
            ast::ExtendedTestExpr::And(a, b) | ast::ExtendedTestExpr::Or(a, b) => {
                self.test_words(a, out, arith, names);
                self.test_words(b, out, arith, names);
            }
            ast::ExtendedTestExpr::Not(a) | ast::ExtendedTestExpr::Parenthesized(a) => {
                self.test_words(a, out, arith, names)
            }
            ast::ExtendedTestExpr::UnaryTest(op, w) => {
                let word = self.word(w);
                if matches!(
                    op,
                    ast::UnaryPredicate::ShellVariableIsSetAndAssigned
                        | ast::UnaryPredicate::ShellVariableIsSetAndNameRef
                ) {
                    names.push(word.clone());
                }
                out.push(word);
            }
            ast::ExtendedTestExpr::BinaryTest(op, a, b) => {
                let (wa, wb) = (self.word(a), self.word(b));
                use ast::BinaryPredicate as B;
                if matches!(
                    op,
                    B::ArithmeticEqualTo
                        | B::ArithmeticNotEqualTo
                        | B::ArithmeticLessThan
                        | B::ArithmeticLessThanOrEqualTo
                        | B::ArithmeticGreaterThan
                        | B::ArithmeticGreaterThanOrEqualTo
                ) {
                    arith.push(wa.clone());
                    arith.push(wb.clone());
                }
                out.push(wa);
                out.push(wb);
            }
        }
    }

    fn arith_word(&self, e: &ast::UnexpandedArithmeticExpr) -> Word {
        // Arithmetic text is evaluated, and may hold substitutions: analyze
        // it as the inside of `$(( … ))`.
        Word::analyze(&format!("$(({}))", e.value), self.base)
    }

    fn compound(
        &self,
        cc: &ast::CompoundCommand,
        redirects: Vec<Redirect>,
    ) -> Result<Command, ParseFailure> {
        Ok(match cc {
            ast::CompoundCommand::Arithmetic(a) => Command::Arith {
                text: self.arith_word(&a.expr),
            },
            ast::CompoundCommand::ArithmeticForClause(f) => {
                let mut words = Vec::new();
                for e in [&f.initializer, &f.condition, &f.updater]
                    .into_iter()
                    .flatten()
                {
                    words.push(self.arith_word(e));
                }
                Command::Control {
                    kind: ControlKind::ArithFor,
                    words,
                    bodies: vec![self.list(&f.body.list)?],
                    redirects,
                    var: None,
                }
            }
            ast::CompoundCommand::BraceGroup(g) => Command::Group {
                body: self.list(&g.list)?,
                redirects,
            },
            ast::CompoundCommand::Subshell(s) => Command::Subshell {
                body: self.list(&s.list)?,
                redirects,
            },
            ast::CompoundCommand::ForClause(f) => Command::Control {
                var: f.values.as_ref().map(|_| f.variable_name.clone()),
                kind: ControlKind::For,
                words: f
                    .values
                    .as_ref()
                    .map(|v| v.iter().map(|w| self.word(w)).collect())
                    .unwrap_or_default(),
                bodies: vec![self.list(&f.body.list)?],
                redirects,
            },
            ast::CompoundCommand::CaseClause(c) => {
                let mut words = vec![self.word(&c.value)];
                let mut bodies = Vec::new();
                for item in &c.cases {
                    for p in &item.patterns {
                        words.push(self.word(p));
                    }
                    if let Some(l) = &item.cmd {
                        bodies.push(self.list(l)?);
                    }
                }
                Command::Control {
                    kind: ControlKind::Case,
                    words,
                    bodies,
                    redirects,
                    var: None,
                }
            }
            ast::CompoundCommand::IfClause(i) => {
                let mut bodies = vec![self.list(&i.condition)?, self.list(&i.then)?];
                for e in i.elses.iter().flatten() {
                    if let Some(c) = &e.condition {
                        bodies.push(self.list(c)?);
                    }
                    bodies.push(self.list(&e.body)?);
                }
                Command::Control {
                    kind: ControlKind::If,
                    words: Vec::new(),
                    bodies,
                    redirects,
                    var: None,
                }
            }
            ast::CompoundCommand::WhileClause(w) | ast::CompoundCommand::UntilClause(w) => {
                let kind = if matches!(cc, ast::CompoundCommand::WhileClause(_)) {
                    ControlKind::While
                } else {
                    ControlKind::Until
                };
                Command::Control {
                    kind,
                    words: Vec::new(),
                    bodies: vec![self.list(&w.0)?, self.list(&w.1.list)?],
                    redirects,
                    var: None,
                }
            }
            ast::CompoundCommand::Coprocess(c) => Command::Coproc {
                body: Box::new(self.command(&c.body)?),
            },
        })
    }

    fn simple(&self, s: &ast::SimpleCommand) -> Result<Simple, ParseFailure> {
        let mut out = Simple {
            start: usize::MAX,
            assignments: Vec::new(),
            words: Vec::new(),
            proc_substs: Vec::new(),
            redirects: Vec::new(),
        };
        if let Some(prefix) = &s.prefix {
            for item in &prefix.0 {
                self.item(item, &mut out)?;
            }
        }
        if let Some(w) = &s.word_or_name {
            let word = self.word(w);
            out.start = out.start.min(word.start);
            out.words.push(word);
        }
        if let Some(suffix) = &s.suffix {
            for item in &suffix.0 {
                self.item(item, &mut out)?;
            }
        }
        if out.start == usize::MAX {
            out.start = self.base;
        }
        Ok(out)
    }

    fn item(
        &self,
        item: &ast::CommandPrefixOrSuffixItem,
        out: &mut Simple,
    ) -> Result<(), ParseFailure> {
        match item {
            ast::CommandPrefixOrSuffixItem::IoRedirect(r) => out.redirects.push(self.redirect(r)?),
            ast::CommandPrefixOrSuffixItem::Word(w) => {
                let word = self.word(w);
                out.start = out.start.min(word.start);
                out.words.push(word);
            }
            ast::CommandPrefixOrSuffixItem::AssignmentWord(a, w) => {
                let start = self.pos(&w.loc);
                out.start = out.start.min(start);
                let (name, index) = match &a.name {
                    ast::AssignmentName::VariableName(n) => (n.clone(), None),
                    ast::AssignmentName::ArrayElementName(n, i) => {
                        (n.clone(), Some(Word::analyze(i, start)))
                    }
                };
                let values = match &a.value {
                    ast::AssignmentValue::Scalar(v) => vec![Word::analyze(&v.value, start)],
                    ast::AssignmentValue::Array(items) => {
                        let mut v = Vec::new();
                        for (k, val) in items {
                            if let Some(k) = k {
                                v.push(Word::analyze(&k.value, start));
                            }
                            v.push(Word::analyze(&val.value, start));
                        }
                        v
                    }
                };
                if out.words.is_empty() {
                    out.assignments.push(Assignment {
                        name,
                        raw: w.value.clone(),
                        start,
                        index,
                        values,
                    });
                } else {
                    // An assignment-looking word after the command name is
                    // an ordinary argument (`make DESTDIR=x`).
                    out.words.push(Word::analyze(&w.value, start));
                }
            }
            ast::CommandPrefixOrSuffixItem::ProcessSubstitution(kind, sub) => {
                let output = matches!(kind, ast::ProcessSubstitutionKind::Write);
                // The parser's location covers the parenthesized list; the
                // placeholder shows the direction as written.
                let body_text = self.slice(&sub.loc).unwrap_or("(…)");
                let raw = format!("{}{body_text}", if output { '>' } else { '<' });
                let start = self.base + sub.loc.start.index;
                out.start = out.start.min(start);
                let body = self.list(&sub.list)?;
                out.proc_substs.push(ProcSubst {
                    word_index: out.words.len(),
                    output,
                    body,
                    glued: self.glued(&sub.loc),
                });
                out.words.push(Word::proc_subst(&raw, start));
            }
        }
        Ok(())
    }

    fn redirect(&self, r: &ast::IoRedirect) -> Result<Redirect, ParseFailure> {
        let fd_prefix = |fd: &Option<ast::IoFd>| fd.map(|f| f.to_string()).unwrap_or_default();
        Ok(match r {
            ast::IoRedirect::File(fd, kind, target) => {
                let (op_text, rk) = match kind {
                    ast::IoFileRedirectKind::Read => ("<", RedirKind::Read),
                    ast::IoFileRedirectKind::Write => (">", RedirKind::Write),
                    ast::IoFileRedirectKind::Append => (">>", RedirKind::Append),
                    ast::IoFileRedirectKind::ReadAndWrite => ("<>", RedirKind::ReadWrite),
                    ast::IoFileRedirectKind::Clobber => (">|", RedirKind::Clobber),
                    ast::IoFileRedirectKind::DuplicateInput => ("<&", RedirKind::Dup),
                    ast::IoFileRedirectKind::DuplicateOutput => (">&", RedirKind::Dup),
                };
                let op = format!("{}{}", fd_prefix(fd), op_text);
                match target {
                    ast::IoFileRedirectTarget::Filename(w) => Redirect {
                        op,
                        kind: rk,
                        target: RedirTarget::File(self.word(w)),
                        implicit: false,
                    },
                    ast::IoFileRedirectTarget::Fd(n) => Redirect {
                        op,
                        kind: RedirKind::Dup,
                        target: RedirTarget::Fd(n.to_string()),
                        implicit: true,
                    },
                    ast::IoFileRedirectTarget::Duplicate(w) => {
                        let word = self.word(w);
                        let is_fd = word
                            .literal()
                            .map(|v| {
                                v == "-"
                                    || v.trim_end_matches('-').chars().all(|c| c.is_ascii_digit())
                                        && !v.is_empty()
                            })
                            .unwrap_or(false);
                        if is_fd {
                            Redirect {
                                op,
                                kind: RedirKind::Dup,
                                target: RedirTarget::Fd(w.value.clone()),
                                implicit: false,
                            }
                        } else if rk == RedirKind::Dup && op_text == ">&" && fd.is_none() {
                            // `>&file` is `&>file`.
                            Redirect {
                                op,
                                kind: RedirKind::OutErr,
                                target: RedirTarget::File(word),
                                implicit: false,
                            }
                        } else {
                            // `n>&$fd`, `<&word`: the fd is dynamic; treat the
                            // word as a file target so nothing is hidden.
                            Redirect {
                                op,
                                kind: if op_text == "<&" {
                                    RedirKind::Read
                                } else {
                                    RedirKind::Write
                                },
                                target: RedirTarget::File(word),
                                implicit: false,
                            }
                        }
                    }
                    ast::IoFileRedirectTarget::ProcessSubstitution(k, sub) => {
                        if self.glued(&sub.loc) {
                            // `cat < <(x)y` opens `/dev/fd/63y`: not followed.
                            return Err(ParseFailure::Syntax(
                                "text glued to a process substitution".into(),
                            ));
                        }
                        let raw = self.slice(&sub.loc).unwrap_or("<(…)").to_string();
                        Redirect {
                            op,
                            kind: rk,
                            target: RedirTarget::ProcSubst {
                                output: matches!(k, ast::ProcessSubstitutionKind::Write),
                                body: self.list(&sub.list)?,
                                raw,
                            },
                            implicit: false,
                        }
                    }
                }
            }
            ast::IoRedirect::HereDocument(fd, h) => {
                let start = self.pos(&h.doc.loc);
                let body = if h.requires_expansion {
                    Word::analyze_heredoc(&h.doc.value, start)
                } else {
                    let mut w = Word::analyze_heredoc("", start);
                    w.raw = h.doc.value.clone();
                    w
                };
                Redirect {
                    op: format!(
                        "{}{}",
                        fd_prefix(fd),
                        if h.remove_tabs { "<<-" } else { "<<" }
                    ),
                    kind: RedirKind::HereDoc,
                    target: RedirTarget::HereDoc {
                        body,
                        expands: h.requires_expansion,
                    },
                    implicit: false,
                }
            }
            ast::IoRedirect::HereString(fd, w) => Redirect {
                op: format!("{}<<<", fd_prefix(fd)),
                kind: RedirKind::HereString,
                target: RedirTarget::HereString(self.word(w)),
                implicit: false,
            },
            ast::IoRedirect::OutputAndError(w, append) => Redirect {
                op: if *append { "&>>".into() } else { "&>".into() },
                kind: if *append {
                    RedirKind::OutErrAppend
                } else {
                    RedirKind::OutErr
                },
                target: RedirTarget::File(self.word(w)),
                implicit: false,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists_and_pipes() {
        let s = parse("a && b | c; d &", 0).unwrap();
        assert_eq!(s.items.len(), 2);
        assert_eq!(s.items[0].rest.len(), 1);
        assert!(s.items[1].background);
    }

    #[test]
    fn pipe_stderr_is_marked() {
        let s = parse("a |& b", 0).unwrap();
        assert!(s.items[0].first.elems[0].stderr_too);
        match &s.items[0].first.elems[0].cmd {
            Command::Simple(x) => assert!(x.redirects.is_empty()),
            _ => panic!(),
        }
    }

    #[test]
    fn refuses_deep_nesting_before_parsing() {
        let deep = "$(".repeat(5000);
        assert_eq!(parse(&deep, 0).unwrap_err(), ParseFailure::TooDeep);
        let braces = "{ ".repeat(5000);
        assert_eq!(parse(&braces, 0).unwrap_err(), ParseFailure::TooDeep);
    }

    #[test]
    fn oversized_fd_numbers_do_not_panic() {
        // Fuzzer finding: brush-parser unwrapped an overflowing fd number.
        assert!(parse("find /x -newermt 201312031204</ y", 0).is_err());
        assert!(parse("cat 99999999999>x", 0).is_err());
        assert!(parse("cat 2>x", 0).is_ok());
    }

    #[test]
    fn unclosed_parentheses_cannot_stall_the_parser() {
        // Fuzzer finding: `]` must not close a `(` in the depth scan.
        let slow = format!("{}x|y{}z", "((((((((( a|b|".repeat(3), "]".repeat(40));
        assert_eq!(parse(&slow, 0).unwrap_err(), ParseFailure::TooDeep);
        assert!(parse("echo $(( (1 + 2) * 3 ))", 0).is_ok());
        assert!(parse("x \"$(a \"${T_[R\"${T[E$(m \"X\")", 0).is_err());
        assert!(parse("echo \"${a[0]}\" [x]", 0).is_ok());
        assert_eq!(
            parse("e `=$((''$(($((()($((crrtime + (2]* 60))+) ''''\")mn `", 0).unwrap_err(),
            ParseFailure::TooDeep
        );
        assert!(parse("echo `date +%s` `echo $(( (1 + 2) ))`", 0).is_ok());
        // Fuzzer findings: quotes hid the parentheses from the scan.
        assert!(parse(
            "e t```'=$(($$$((($((((($(($($\"'${p. - er`=ecxprog&&````",
            0
        )
        .is_err());
        let hidden = format!("x '{}", "(".repeat(30));
        assert_eq!(parse(&hidden, 0).unwrap_err(), ParseFailure::TooDeep);
    }

    #[test]
    fn empty_heredoc_delimiters_do_not_hang() {
        // Fuzzer finding: brush-parser loops on `<<""` followed by a blank.
        assert!(parse("a<<\"\" ", 0).is_err());
        assert!(parse("x=\"\"<<''  ", 0).is_err());
        assert!(parse("cat <<-\"\"\nx\n", 0).is_err());
        assert!(parse("<<\r ", 0).is_err());
        assert!(parse("$[$[]<<      ", 0).is_err());
        assert!(parse("$[$[]''<<  t ", 0).is_err());
        assert!(parse("echo $((1 << 4)) $(( (2) << 1 ))", 0).is_ok());
        assert!(parse("(( x = 1 << 2 ))", 0).is_ok());
        assert!(parse("cat <<\nx", 0).is_err());
        assert!(parse("$(cat <<  p ", 0).is_err());
        assert!(parse("a $(<<\t\tp\t", 0).is_err());
        assert!(parse("echo \"$(cat <<'EOF'\nx\nEOF\n)\"", 0).is_ok());
        assert!(parse("echo \"a << b\" $(date)", 0).is_ok());
        assert!(parse("echo $(cat <<< x)", 0).is_ok());
        assert!(parse("x <<$'\\r' y", 0).is_err());
        assert!(parse("cat <<'EOF'\nx\nEOF", 0).is_ok());
        assert!(parse("cat <<< \"\"", 0).is_ok());
    }

    #[test]
    fn syntax_errors_are_errors() {
        assert!(parse("echo \"unterminated", 0).is_err());
        assert!(parse("ls )", 0).is_err());
    }
}
