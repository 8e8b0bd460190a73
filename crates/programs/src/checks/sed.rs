//! The sed script validator: the script is read the way GNU sed 4.x's
//! compiler reads it (`compile_program` in sed/compile.c), one command at a
//! time, so that every command the validator accepts is the command sed
//! runs. Reading it any other way lets a command hide: GNU sed ends a label
//! at a blank (`:a e id` is a label and an `e` command), and a delimiter
//! inside a bracket expression does not end a regex (`s/[/]/x/`).
//!
//! Where this reader and sed could part (a delimiter sed reads byte-wise,
//! text continued into the next `-e` script), the script is refused.

/// Accept a sed script whose commands only print, substitute, delete from
/// the output, transliterate, branch or quit: never `e`, `r`, `R`, `w`, `W`,
/// nor the `e`/`w` flags of `s`.
pub fn sed(script: &str) -> Result<(), String> {
    Reader {
        c: script.chars().collect(),
        i: 0,
        runs: None,
        last: None,
    }
    .program()
}

/// The command lines a sed script's `e COMMAND` commands hand to a shell,
/// read as sed reads the script, up to the first command the validator
/// cannot read (hard deny checks them: `sed '1e rm -rf /' f`).
pub fn sed_commands(script: &str) -> Vec<String> {
    let mut r = Reader {
        c: script.chars().collect(),
        i: 0,
        runs: Some(Vec::new()),
        last: None,
    };
    let _ = r.program();
    r.runs.unwrap_or_default()
}

struct Reader {
    c: Vec<char>,
    i: usize,
    /// When collecting: the `e` commands' texts, and `e` is read on.
    runs: Option<Vec<String>>,
    /// When collecting: the last `s` command's replacement (what a bare
    /// `e` after it runs: `s/^/rm -rf \/ #/;e`).
    last: Option<String>,
}

/// sed's `ISSPACE` (the C locale's isspace): what separates commands.
fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// sed's `ISBLANK`: what `in_nonblank` skips inside a command.
fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t')
}

fn err<T>(s: &str) -> Result<T, String> {
    Err(s.to_string())
}

impl Reader {
    /// sed's `inchar`: the next character, `None` at the end of the script.
    fn next(&mut self) -> Option<char> {
        let ch = self.c.get(self.i).copied();
        if ch.is_some() {
            self.i += 1;
        }
        ch
    }

    /// sed's `savchar`: give back what `next` returned.
    fn back(&mut self, ch: Option<char>) {
        if ch.is_some() {
            self.i -= 1;
        }
    }

    /// sed's `in_nonblank`.
    fn nonblank(&mut self) -> Option<char> {
        loop {
            match self.next() {
                Some(c) if is_blank(c) => continue,
                other => return other,
            }
        }
    }

    /// sed's `read_end_of_cmd`: blanks, then `;`, a line end, the end of the
    /// script, or a `}` or `#` (left for the next command).
    fn end_of_cmd(&mut self) -> Result<(), String> {
        match self.nonblank() {
            ch @ Some('}' | '#') => {
                self.back(ch);
                Ok(())
            }
            None | Some('\n' | ';') => Ok(()),
            Some(_) => err("text after a sed command"),
        }
    }

    /// sed's `in_integer` after its first digit.
    fn integer(&mut self) {
        loop {
            match self.next() {
                Some(c) if c.is_ascii_digit() => continue,
                other => {
                    self.back(other);
                    return;
                }
            }
        }
    }

    /// An optional integer, as `in_integer (in_nonblank ())` reads it.
    fn integer_after_blanks(&mut self) {
        match self.nonblank() {
            Some(c) if c.is_ascii_digit() => self.integer(),
            other => self.back(other),
        }
    }

    /// sed's `read_label`: blanks, then everything up to a blank, `;`, a
    /// line end, `}` or `#`, which stays for the next command. Returns
    /// whether the label is empty.
    fn label(&mut self) -> Result<bool, String> {
        let mut ch = self.nonblank();
        let mut empty = true;
        while let Some(c) = ch {
            if c == '\n' || is_blank(c) || c == ';' || c == '}' || c == '#' {
                break;
            }
            if !c.is_ascii() {
                // Whether a byte of it is a blank depends on the locale.
                return Err("a sed label outside ASCII".into());
            }
            empty = false;
            ch = self.next();
        }
        self.back(ch);
        Ok(empty)
    }

    /// A delimiter of `s`, `y` or `\cREGEXc`: one ASCII character other
    /// than a line end and a backslash. (GNU sed takes a backslash too, and
    /// in a single-byte locale any byte; neither is needed to print.)
    fn delimiter(&mut self) -> Result<char, String> {
        match self.next() {
            Some(d) if d.is_ascii() && d != '\n' && d != '\\' => Ok(d),
            _ => err("unusual sed delimiter"),
        }
    }

    /// sed's `match_slash`: the text up to the unescaped delimiter `d`,
    /// which is consumed. In a regex (`regex`), a bracket expression is
    /// read whole first: the delimiter inside `[...]` does not end it.
    /// An unescaped line end ends the script's command with an error.
    fn delimited(&mut self, d: char, regex: bool) -> Result<(), String> {
        loop {
            match self.next() {
                None => return err("unterminated sed regex or replacement"),
                Some('\n') => return err("line break inside a sed regex or replacement"),
                Some(c) if c == d => return Ok(()),
                Some('\\') => {
                    // The escaped character, a line end included.
                    if self.next().is_none() {
                        return err("unterminated sed regex or replacement");
                    }
                }
                Some('[') if regex => self.bracket()?,
                Some(_) => {}
            }
        }
    }

    /// sed's `snarf_char_class`, after the `[`: up to the `]` that closes
    /// the bracket expression. A `]` first (after an optional `^`) is a
    /// member; `[:…:]`, `[.….]` and `[=…=]` hold `]` and the delimiter
    /// freely; a backslash is an ordinary member.
    fn bracket(&mut self) -> Result<(), String> {
        let mut ch = self.next();
        if ch == Some('^') {
            ch = self.next();
        }
        if ch == Some(']') {
            ch = self.next();
        }
        // 0: plain; 1: after a `[`; 2: inside `[:` (`.` or `=`); 3: after
        // the closing `:` (`.`, `=`) of such an element.
        let mut state = 0u8;
        let mut delim = '\0';
        loop {
            let Some(c) = ch else {
                return err("unterminated bracket expression in a sed regex");
            };
            match c {
                '\n' => return err("line break in a bracket expression"),
                '.' | ':' | '=' => {
                    if state == 1 {
                        delim = c;
                        state = 2;
                        ch = self.next();
                        continue;
                    } else if state == 2 && c == delim {
                        state = 3;
                        ch = self.next();
                        continue;
                    }
                }
                '[' => {
                    if state == 0 {
                        state = 1;
                    }
                    ch = self.next();
                    continue;
                }
                ']' => {
                    if state <= 1 {
                        return Ok(());
                    } else if state == 3 {
                        state = 0;
                    }
                }
                _ => {}
            }
            state &= !1;
            ch = self.next();
        }
    }

    /// sed's `compile_address`: whether `ch` starts an address (then read).
    fn address(&mut self, ch: Option<char>) -> Result<bool, String> {
        match ch {
            Some('/') => self.regex_address('/')?,
            Some('\\') => {
                let d = self.delimiter()?;
                self.regex_address(d)?;
            }
            Some(c) if c.is_ascii_digit() => {
                self.integer();
                match self.nonblank() {
                    Some('~') => self.integer_after_blanks(),
                    other => self.back(other),
                }
            }
            Some('+' | '~') => self.integer_after_blanks(),
            Some('$') => {}
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn regex_address(&mut self, d: char) -> Result<(), String> {
        self.delimited(d, true)?;
        loop {
            match self.nonblank() {
                Some('I' | 'M') => continue,
                other => {
                    self.back(other);
                    return Ok(());
                }
            }
        }
    }

    /// sed's `read_text` for `a`, `i`, `c`: up to an unescaped line end.
    /// A text that a backslash continues past the end of the script would
    /// continue into the next `-e` script, which this reader cannot see as
    /// text: refused.
    fn text(&mut self) -> Result<(), String> {
        loop {
            match self.next() {
                None | Some('\n') => return Ok(()),
                Some('\\') => {
                    if self.next().is_none() {
                        return err("a/i/c text continued into the next script");
                    }
                }
                Some(_) => {}
            }
        }
    }

    /// The flags of `s` (sed's `mark_subst_opts`). Collecting, `e` is read
    /// on and reported (`Ok(true)`).
    fn subst_flags(&mut self) -> Result<bool, String> {
        let mut e = false;
        loop {
            match self.nonblank() {
                Some('i' | 'I' | 'm' | 'M' | 'g' | 'p') => {}
                Some(c) if c.is_ascii_digit() => self.integer(),
                Some('e') if self.runs.is_some() => e = true,
                Some('e') => return err("the e flag of s runs the pattern space"),
                Some('w') => return err("the w flag of s writes a file"),
                ch @ Some('}' | '#') => {
                    self.back(ch);
                    return Ok(e);
                }
                None | Some('\n' | ';') => return Ok(e),
                Some('\r') => {
                    return if self.next() == Some('\n') {
                        Ok(e)
                    } else {
                        err("unknown s flag")
                    };
                }
                Some(_) => return err("unknown s flag"),
            }
        }
    }

    /// sed's `compile_program`.
    fn program(&mut self) -> Result<(), String> {
        loop {
            let mut ch = loop {
                match self.next() {
                    Some(c) if c == ';' || is_space(c) => continue,
                    other => break other,
                }
            };
            if ch.is_none() {
                return Ok(());
            }
            let mut addressed = false;
            if self.address(ch)? {
                addressed = true;
                ch = self.nonblank();
                if ch == Some(',') {
                    let second = self.nonblank();
                    if !self.address(second)? {
                        return err("unexpected `,` in a sed address");
                    }
                    ch = self.nonblank();
                }
            }
            if ch == Some('!') {
                ch = self.nonblank();
                if ch == Some('!') {
                    return err("multiple `!` in a sed address");
                }
            }
            let Some(cmd) = ch else {
                return err("sed address without a command");
            };
            match cmd {
                '#' => {
                    if addressed {
                        return err("comment after a sed address");
                    }
                    while !matches!(self.next(), None | Some('\n')) {}
                }
                // A version requirement; sed reads it as a label and goes
                // straight on to the next command.
                'v' => {
                    self.label()?;
                }
                '{' => {}
                '}' => {
                    if addressed {
                        return err("address on `}`");
                    }
                    self.end_of_cmd()?;
                }
                'e' if self.runs.is_some() => {
                    // sed's `read_text`: the rest of the line.
                    let mut text = String::new();
                    let mut ch = self.nonblank();
                    while let Some(c) = ch {
                        if c == '\n' {
                            break;
                        }
                        if c == '\\' {
                            if let Some(n) = self.next() {
                                text.push(n);
                            }
                        } else {
                            text.push(c);
                        }
                        ch = self.next();
                    }
                    if text.trim().is_empty() {
                        // A bare `e` runs the pattern space: what the last
                        // `s` made of it.
                        text = self.last.clone().unwrap_or_default();
                    }
                    if !text.trim().is_empty() {
                        if let Some(runs) = self.runs.as_mut() {
                            runs.push(text);
                        }
                    }
                }
                'e' => return err("the e command runs a command"),
                'a' | 'i' | 'c' => match self.nonblank() {
                    None => return err("a/i/c without text"),
                    Some('\\') => {
                        // `a\` then the text (on the next line, or glued).
                        if self.next().is_none() {
                            return err("a/i/c text continued into the next script");
                        }
                        self.text()?;
                    }
                    other => {
                        self.back(other);
                        self.text()?;
                    }
                },
                ':' => {
                    if addressed {
                        return err("address on a sed label");
                    }
                    if self.label()? {
                        return err("sed label without a name");
                    }
                }
                'b' | 't' | 'T' => {
                    self.label()?;
                }
                'q' | 'Q' | 'l' => {
                    self.integer_after_blanks();
                    self.end_of_cmd()?;
                }
                '=' | 'd' | 'D' | 'F' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'z'
                | 'x' => self.end_of_cmd()?,
                'r' | 'R' => return err("the r/R commands read another file"),
                'w' | 'W' => return err("the w/W commands write a file"),
                's' => {
                    let d = self.delimiter()?;
                    self.delimited(d, true)?;
                    let from = self.i;
                    self.delimited(d, false)?;
                    let to = self.i.saturating_sub(1);
                    // The replacement, escapes undone (`\/` is `/`): what
                    // `s/.*/CMD/e` (or a bare `e` after it) runs.
                    let mut text = String::new();
                    let mut chars = self.c[from..to.max(from)].iter();
                    while let Some(&c) = chars.next() {
                        if c == '\\' {
                            text.extend(chars.next());
                        } else {
                            text.push(c);
                        }
                    }
                    if self.subst_flags()? {
                        if let Some(runs) = self.runs.as_mut() {
                            runs.push(text.clone());
                        }
                    }
                    if self.runs.is_some() {
                        self.last = Some(text);
                    }
                }
                'y' => {
                    let d = self.delimiter()?;
                    self.delimited(d, false)?;
                    self.delimited(d, false)?;
                    self.end_of_cmd()?;
                }
                _ => return err("unknown sed command"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::sed;

    #[test]
    fn e_commands_are_collected() {
        use super::sed_commands;
        assert_eq!(sed_commands("1e rm -rf /"), vec!["rm -rf /"]);
        assert_eq!(
            sed_commands("p;:a e id\n$e  touch x; ls"),
            vec!["id", "touch x; ls"]
        );
        assert!(sed_commands("s/a/b/;p").is_empty());
        assert!(sed_commands("1e").is_empty());
        assert_eq!(sed_commands("s/.*/rm -rf \\//e"), vec!["rm -rf /"]);
        assert_eq!(sed_commands("s|x|id|ge"), vec!["id"]);
        assert_eq!(sed_commands("s/^/rm -rf \\/ #/;e"), vec!["rm -rf / #"]);
    }

    #[test]
    fn scripts_that_only_print() {
        for ok in [
            "1,5p",
            "/foo/,/bar/p",
            "s/a/b/g",
            "s|a|b|2",
            "s/x/y/I;p",
            "1d",
            "$!N;P;D",
            "/^#/d",
            "y/abc/xyz/",
            "10q",
            ":a;N;$!ba;s/\\n/ /g",
            ":a\nN\n$!ba\ns/\\n/ /g",
            "1,200p",
            "/start/,+3p",
            "{p;p}",
            "s/a\\/b/c/",
            "$=",
            // Bracket expressions: the delimiter inside does not end them.
            "s/[/]/x/g",
            "s/[]/]/x/",
            "s/[^]/]/x/",
            "s/[[:alpha:]/]/x/g",
            "s/[[:alpha:]]*$//",
            "s/[0-9][0-9]*/N/g; s/[a-z]*$//",
            "/[/]/p",
            "s|[|]|x|",
            "\\,a,p",
            "/x/ I p",
            "1~2p",
            "0,/a/p",
            "l 3",
            "q5",
            "s/a/b/ g p",
            "#n\np",
            "/x/{s/a/b/;p}",
            "/x/{\np\n}",
            ":a\n/x/ba",
            "bend;s/a/b/;:end",
            "tx;s/a/b/;:x",
            "v 4.2",
            "1a hello; e id",
            "1i\\\nline",
            "$a\\\nmore \\\ntext",
            "=",
            "F",
            "z;p",
        ] {
            assert!(sed(ok).is_ok(), "{ok:?} should pass: {:?}", sed(ok));
        }
    }

    #[test]
    fn scripts_that_run_read_or_write() {
        for bad in [
            "w out",
            "1w /tmp/x",
            "s/a/b/w f",
            "s/a/b/e",
            "e id",
            "1e id",
            "r /etc/passwd",
            "R f",
            "W f",
            "s/a/b/ge",
            "/x/ e id",
            "s/a/b",
            "p w f",
            // rt12 F1: GNU sed ends a label at a blank (and `}`/`#`).
            ":a e cat ~/.ssh/id_rsa",
            ":a\te id",
            ":a w /tmp/x",
            "bx;:x e id",
            "ba e id\n:a",
            "t;e id",
            "T x e id",
            "{:a};e id",
            ":a#c\ne id",
            // `v` reads its version as a label, then the next command.
            "v 4.2 e id",
            "v;e id",
            // rt12 F2: a bracket holds the delimiter, the regex goes on.
            "s/.*[/].*/p;s|cat ~\\/.ssh\\/id_rsa;/e;#||",
            "/[/]/w /tmp/x",
            "s/[]/]/p;s|x;/e;#||",
            "s/[^]/]/p;s|x;/e;#||",
            "s/[[:alpha:]/]/p;s|x;/e;#||",
            "s/[[.-.]/]/p;s|x;/e;#||",
            "\\,[,],w /tmp/x",
            // Flags after blanks.
            "s/a/b/ e",
            "s/a/b/ w f",
            "s/a/b/g w f",
            // Text continued into the next -e script.
            "a foo\\",
            "a\\",
            // Delimiters sed reads byte-wise or as escapes.
            "s\\a\\b\\",
            "s\u{e9}a\u{e9}b\u{e9}",
            "L",
            ":a\u{a0}e id",
        ] {
            assert!(sed(bad).is_err(), "{bad:?} should fail");
        }
    }
}
