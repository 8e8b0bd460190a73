//! The awk program validator: the program is tokenized as awk's lexers
//! read it, so that `system`, `getline`, `close`, `fflush`, a pipe or an
//! output redirection cannot hide inside what the validator took for a
//! regex or a string.
//!
//! The one hard question of awk's lexing is whether `/` divides or starts
//! a regex. awk decides by the token before it: after an operand (a
//! number, a string, a regex, a variable, `)`, `]`) it divides; where an
//! expression or a statement starts it opens a regex. The awks differ
//! after some tokens: mawk opens a regex after a builtin function name
//! (`length / 2 /` is a regex there), after `++`/`--` and after `$`; gawk
//! and the one true awk open one after the `)` of `if (…)`, where mawk
//! divides. After such a token a `/` is refused. The same for where a
//! regex ends: the awks read bracket expressions differently (`[]/]`,
//! `[/]`), so a bracket expression must be one they all end at the same
//! `]` and that holds no `/`.
//!
//! A backslash-newline joins lines (the token before it stays the token
//! before `/`); a newline after `,`, `{`, `&&`, `||`, `do`, `else` or an
//! operator continues the statement, so a `print` goes on past it.

/// An awk program that only reads its input and prints to standard output.
pub fn awk(prog: &str) -> Result<(), String> {
    Lexer {
        c: prog.chars().collect(),
        i: 0,
        last: Last::Start,
        stack: Vec::new(),
        print_depth: None,
    }
    .run()
}

const BAD_WORDS: &[&str] = &[
    "system", "getline", "close", "fflush", "ENVIRON", "PROCINFO", "ARGV", "ARGC", "SYMTAB",
    "FUNCTAB",
];

/// Builtin functions (gawk, mawk, the one true awk, busybox): mawk lexes a
/// `/` after one as a regex, the others as division.
const BUILTINS: &[&str] = &[
    "length",
    "substr",
    "index",
    "split",
    "sub",
    "gsub",
    "match",
    "sprintf",
    "sin",
    "cos",
    "atan2",
    "exp",
    "log",
    "sqrt",
    "int",
    "rand",
    "srand",
    "tolower",
    "toupper",
    "systime",
    "strftime",
    "mktime",
    "gensub",
    "patsplit",
    "asort",
    "asorti",
    "and",
    "or",
    "xor",
    "lshift",
    "rshift",
    "compl",
    "strtonum",
    "isarray",
    "typeof",
    "mkbool",
    "bindtextdomain",
    "dcgettext",
    "dcngettext",
];

/// Keywords after which a `/` is not an operand's division in every awk,
/// and not surely a regex either.
const UNSURE_KEYWORDS: &[&str] = &[
    "in",
    "function",
    "func",
    "BEGIN",
    "END",
    "BEGINFILE",
    "ENDFILE",
    "next",
    "nextfile",
    "exit",
    "break",
    "continue",
    "delete",
    "case",
    "default",
];

/// What the previous token was, as far as `/` and a newline care.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Last {
    /// The start of the program.
    Start,
    /// An operand: `/` divides in every awk; a newline ends the statement.
    Operand,
    /// An operator (`=`, `+`, `~`, `(`, `[`, `!`, …): `/` opens a regex;
    /// a newline does not end anything.
    Op,
    /// `,` `{` `&&` `||` `do` `else`: `/` opens a regex; awk skips a
    /// newline after them.
    EatsNewline,
    /// `;`, `}` or a newline that ended a statement: `/` opens a regex.
    Term,
    /// `print`/`printf`/`return`: `/` opens a regex; a newline ends the
    /// statement.
    Keyword,
    /// `if`, `while`, `for`, `switch`: the `(` after them holds a condition.
    CondKeyword,
    /// The `)` after a condition: gawk opens a regex, mawk divides; a
    /// newline after it is skipped.
    CondClose,
    /// A token after which the awks part (or which may not take a `/`).
    Unsure,
}

#[derive(Clone, Copy, PartialEq)]
enum Open {
    /// `(` of a group or of a call's arguments.
    Group,
    /// `(` after `if`/`while`/`for`/`switch`.
    Cond,
    /// `(` right after `print`/`printf`.
    PrintArgs,
    /// `[` of a subscript.
    Subscript,
}

struct Lexer {
    c: Vec<char>,
    i: usize,
    last: Last,
    stack: Vec<Open>,
    /// Inside a `print`/`printf` statement: the nesting depth it started at
    /// (a `>` there redirects the output).
    print_depth: Option<usize>,
}

fn err<T>(s: &str) -> Result<T, String> {
    Err(s.to_string())
}

impl Lexer {
    fn peek(&self, k: usize) -> Option<char> {
        self.c.get(self.i + k).copied()
    }

    fn run(&mut self) -> Result<(), String> {
        while let Some(ch) = self.peek(0) {
            match ch {
                ' ' | '\t' => self.i += 1,
                '\\' => {
                    // A backslash-newline joins two lines: no token.
                    if self.peek(1) == Some('\n') {
                        self.i += 2;
                    } else {
                        return err("backslash outside a string or regex in an awk program");
                    }
                }
                '#' => self.comment()?,
                '\n' => {
                    self.i += 1;
                    self.newline()?;
                }
                '"' => {
                    self.string()?;
                    self.last = Last::Operand;
                }
                '/' => self.slash()?,
                c if c.is_ascii_alphabetic() || c == '_' => self.word()?,
                c if c.is_ascii_digit()
                    || (c == '.' && self.peek(1).is_some_and(|d| d.is_ascii_digit())) =>
                {
                    while self
                        .peek(0)
                        .is_some_and(|d| d.is_ascii_alphanumeric() || d == '.')
                    {
                        self.i += 1;
                    }
                    self.last = Last::Operand;
                }
                _ => self.punct(ch)?,
            }
        }
        if !self.stack.is_empty() {
            return err("unbalanced parentheses in an awk program");
        }
        Ok(())
    }

    /// A comment, up to the line end (which is read as a newline). One
    /// ending in a backslash: whether the awk continues it is not sure.
    fn comment(&mut self) -> Result<(), String> {
        while let Some(c) = self.peek(0) {
            if c == '\n' {
                break;
            }
            if c == '\\' && self.peek(1) == Some('\n') {
                return err("an awk comment ending in a backslash");
            }
            self.i += 1;
        }
        Ok(())
    }

    fn newline(&mut self) -> Result<(), String> {
        match self.last {
            Last::Operand | Last::Keyword | Last::Unsure => {
                if !self.stack.is_empty() {
                    return err("a line break inside parentheses of an awk program");
                }
                self.last = Last::Term;
                self.print_depth = None;
            }
            // Skipped by awk, or a syntax error: the statement (and a
            // `print`) goes on.
            Last::Start
            | Last::Term
            | Last::EatsNewline
            | Last::Op
            | Last::CondKeyword
            | Last::CondClose => {}
        }
        Ok(())
    }

    /// A string constant.
    fn string(&mut self) -> Result<(), String> {
        self.i += 1;
        loop {
            match self.peek(0) {
                None => return err("unterminated awk string"),
                Some('\n') => return err("line break in an awk string"),
                Some('"') => {
                    self.i += 1;
                    return Ok(());
                }
                Some('\\') => {
                    if self.peek(1).is_none() {
                        return err("unterminated awk string");
                    }
                    self.i += 2;
                }
                Some(_) => self.i += 1,
            }
        }
    }

    fn slash(&mut self) -> Result<(), String> {
        match self.last {
            Last::Operand => {
                // Division, or `/=`.
                self.i += 1;
                if self.peek(0) == Some('=') {
                    self.i += 1;
                }
                self.last = Last::Op;
                Ok(())
            }
            Last::Start | Last::Op | Last::EatsNewline | Last::Term | Last::Keyword => {
                self.regex()?;
                self.last = Last::Operand;
                Ok(())
            }
            Last::CondKeyword | Last::CondClose | Last::Unsure => {
                err("`/` where the awks differ on division or a regex")
            }
        }
    }

    /// A regex constant: up to the first unescaped `/`, whose bracket
    /// expressions every awk ends at the same `]`.
    fn regex(&mut self) -> Result<(), String> {
        self.i += 1;
        loop {
            match self.peek(0) {
                None => return err("unterminated awk regex"),
                Some('\n') => return err("line break in an awk regex"),
                Some('/') => {
                    self.i += 1;
                    return Ok(());
                }
                Some('\\') => match self.peek(1) {
                    None | Some('\n') => return err("backslash-newline in an awk regex"),
                    Some(_) => self.i += 2,
                },
                Some('[') => {
                    self.i += 1;
                    self.bracket()?;
                }
                Some(_) => self.i += 1,
            }
        }
    }

    /// A bracket expression after its `[`: `^`? then members, each a
    /// character other than `[ ] \ /`, an escape `\c` (not `\]`), or a
    /// class `[:name:]`, then `]`. Anything else (a `]` first, `[/]`,
    /// `[.`, `[=`) some awk reads differently.
    fn bracket(&mut self) -> Result<(), String> {
        let unsure = || err("a bracket expression the awks may end differently");
        if self.peek(0) == Some('^') {
            self.i += 1;
        }
        let mut members = 0;
        loop {
            match self.peek(0) {
                None | Some('\n' | '/') => return unsure(),
                Some(']') => {
                    if members == 0 {
                        return unsure();
                    }
                    self.i += 1;
                    return Ok(());
                }
                Some('\\') => match self.peek(1) {
                    None | Some('\n' | ']') => return unsure(),
                    Some(_) => self.i += 2,
                },
                Some('[') => {
                    if self.peek(1) != Some(':') {
                        return unsure();
                    }
                    self.i += 2;
                    let start = self.i;
                    while self.peek(0).is_some_and(|c| c.is_ascii_alphabetic()) {
                        self.i += 1;
                    }
                    if self.i == start || self.peek(0) != Some(':') || self.peek(1) != Some(']') {
                        return unsure();
                    }
                    self.i += 2;
                }
                Some(_) => self.i += 1,
            }
            members += 1;
        }
    }

    fn word(&mut self) -> Result<(), String> {
        let start = self.i;
        while self
            .peek(0)
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            self.i += 1;
        }
        let word: String = self.c[start..self.i].iter().collect();
        let w = word.as_str();
        if BAD_WORDS.contains(&w) {
            return Err(format!("awk program uses {word}"));
        }
        self.last = match w {
            "print" | "printf" => {
                self.print_depth = Some(self.stack.len());
                Last::Keyword
            }
            "return" => Last::Keyword,
            "do" | "else" => Last::EatsNewline,
            "if" | "while" | "for" | "switch" => Last::CondKeyword,
            _ if UNSURE_KEYWORDS.contains(&w) || BUILTINS.contains(&w) => Last::Unsure,
            _ => Last::Operand,
        };
        Ok(())
    }

    fn punct(&mut self, ch: char) -> Result<(), String> {
        let next = self.peek(1);
        let mut len = 1;
        self.last = match ch {
            '(' => {
                let kind = match self.last {
                    Last::CondKeyword => Open::Cond,
                    Last::Keyword if self.print_depth == Some(self.stack.len()) => Open::PrintArgs,
                    _ => Open::Group,
                };
                self.stack.push(kind);
                Last::Op
            }
            ')' => match self.stack.pop() {
                Some(Open::Group) => Last::Operand,
                Some(Open::Cond) => Last::CondClose,
                Some(Open::PrintArgs) => Last::Unsure,
                _ => return err("unbalanced parentheses in an awk program"),
            },
            '[' => {
                self.stack.push(Open::Subscript);
                Last::Op
            }
            ']' => match self.stack.pop() {
                Some(Open::Subscript) => Last::Operand,
                _ => return err("unbalanced brackets in an awk program"),
            },
            '{' => {
                self.print_depth = None;
                Last::EatsNewline
            }
            '}' | ';' => {
                self.print_depth = None;
                Last::Term
            }
            ',' => Last::EatsNewline,
            '&' if next == Some('&') => {
                len = 2;
                Last::EatsNewline
            }
            '|' if next == Some('|') => {
                len = 2;
                Last::EatsNewline
            }
            '|' => return err("awk program pipes to or from a command"),
            '>' => {
                if self.print_depth == Some(self.stack.len()) {
                    return err("awk print redirects its output");
                }
                if next == Some('=') {
                    len = 2;
                }
                Last::Op
            }
            '+' | '-' if next == Some(ch) => {
                // `++`/`--`: mawk lexes a `/` after them as a regex.
                len = 2;
                Last::Unsure
            }
            '$' => Last::Unsure,
            '<' | '=' | '!' | '~' | '+' | '-' | '*' | '%' | '^' | '?' | ':' => {
                if next == Some('=') || (ch == '!' && next == Some('~')) {
                    len = 2;
                }
                Last::Op
            }
            '@' => return err("awk program uses @ (include, load, namespace or an indirect call)"),
            '`' => return err("backquote in an awk program"),
            _ => return Err(format!("unexpected character {ch:?} in an awk program")),
        };
        self.i += len;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::awk;

    #[test]
    fn programs_that_only_print() {
        for ok in [
            "{print $1}",
            "{print ($1 > 2)}",
            "$1 > 2 {print}",
            "$1 > 2",
            "{if ($1 > 2) print $2}",
            "/foo/ {n++} END {print n}",
            "{a[$1]+=$2} END {for (k in a) print k, a[k]}",
            "NR==1 || NR==2",
            "{ x = $3 / 2; print x }",
            "{print $1/2}",
            "{ total += $2 } END { print total / NR }",
            "BEGIN{FS=\":\"} {print $1}",
            "{printf \"%s\\n\", $1}",
            "length($0) > 80",
            "/^[a-z]+$/ { n++ } $3 / 2 > 10 { print $1 } END { print n }",
            "/[[:alpha:]_]+/",
            "/[^\\/]*$/",
            "$0 ~ /a\\/b/",
            "!/^#/",
            "NR > 1\n/x/ { print }",
            "BEGIN { x = 4 \\\n + 2; print x }",
            "{ x /= 2; print x }",
            "{ print $1,\n $2 }",
            "function f(a) { return a * 2 } { print f($1) }",
            "{ n = split($0, p, \"/\"); print p[n] }",
            "{ sub(/a/, \"b\"); print }",
            "# comment\n{ print }",
            "{ print $NF }",
            "{ print length }",
            "BEGIN { while (i < 3) i++; print i }",
            "{ if (x)\n print }",
            ".5 < $1",
        ] {
            assert!(awk(ok).is_ok(), "{ok:?}: {:?}", awk(ok));
        }
    }

    #[test]
    fn programs_that_run_or_write() {
        for bad in [
            "BEGIN{system(\"id\")}",
            "{print > \"out\"}",
            "{print $1 > \"/tmp/x\"}",
            "{print | \"sh\"}",
            "{\"date\" | getline d}",
            "{getline < \"/etc/shadow\"}",
            "@include \"x\"",
            "BEGIN{f=\"system\"; @f(\"id\")}",
            "{print ENVIRON[\"HOME\"]}",
            "BEGIN{ARGV[1]=\"/etc/shadow\"}",
            "{printf \"%s\", $1 >> \"f\"}",
            "{close(\"x\")}",
            "{x++ / 1 / 1; system(\"id\")}",
            "{print PROCINFO[\"pid\"]}",
            // rt12 F3: a backslash-newline joins lines, `/` divides.
            "BEGIN { x = 4 \\\n/ 2; system(\"id\"); y = 1 / 3 }",
            // rt12 F3: `]` first in a bracket is a member in gawk and mawk.
            "BEGIN { x = /[]/]/ / 1; system(\"id\"); y = 2 / 1 }",
            "BEGIN { x = /[/]/; system(\"id\") }",
            "BEGIN { x = /[[]/]/ / 2; system(\"id\"); y = 1 / 2 }",
            "BEGIN { x = /[a\\]/]/ }",
            "BEGIN { x = /[[.a.]/]/ }",
            // mawk lexes `/` after a builtin name, `$`, `++` as a regex.
            "BEGIN { x = length / - / ; system(\"id\") ; y = 1 / 2 }",
            "BEGIN { x = $/ - / ; system(\"id\") ; y = 1 / 2 }",
            // gawk opens a regex after the `)` of `if`.
            "BEGIN { if (1) / - / ; system(\"id\") ; y = 1 / 2 }",
            // A print goes on after `,` and a backslash-newline.
            "BEGIN { print \"a\",\n \"b\" > \"/tmp/x\" }",
            "{ print $1 \\\n > \"/tmp/x\" }",
            "{ print $1 ||\n 2 > \"/tmp/x\" }",
            "{ print($1) > \"/tmp/x\" }",
            "{ print ($1) > \"/tmp/x\" }",
            // Unsure lexing: fail closed.
            "BEGIN { x = (4\n/ 2) }",
            "BEGIN { x = 4 # c \\\n/ 2; system(\"id\"); y = 1 / 3 }",
            "BEGIN { x = \"a\nb\" }",
            "BEGIN { x = 1 \\ }",
            "{ print $1 & 1 }",
            "{ print 'x' }",
            "{ print ($1 }",
        ] {
            assert!(awk(bad).is_err(), "{bad:?} should fail");
        }
    }
}
