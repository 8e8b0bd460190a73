//! Validators for program text a read-only form may carry: sed scripts,
//! awk programs, jq filters. Each accepts only text it fully understands
//! as printing to standard output; anything else is refused (allow-list).

mod awk;
mod sed;
pub use awk::awk;
pub use sed::sed;

/// Run the validator named by a spec slot.
pub fn run(name: &str, text: &str) -> Result<(), String> {
    match name {
        "sed" => sed(text),
        "awk" => awk(text),
        "jq" => jq(text),
        "yq" => yq(text),
        "remote" => remote_name(text),
        "date" => date_format(text),
        "refspec" => refspec(text),
        "pkgspec" => pkgspec(text),
        "localrev" => local_rev(text),
        "commitrev" => commit_rev(text),
        "noatfile" => no_at_file(text),
        "msbuild" => msbuild_operand(text),
        "sbt" => sbt_command(text),
        "none" => Err("program text is never read-only here".into()),
        _ => Err(format!("no validator named {name}")),
    }
}

/// A `date` operand that only formats (`+%F`), never one that sets the
/// clock (`MMDDhhmm`).
pub fn date_format(text: &str) -> Result<(), String> {
    if text.starts_with('+') {
        Ok(())
    } else {
        Err(format!("`{text}` would set the clock"))
    }
}

/// A package named from the configured registry (`lodash`,
/// `lodash@^4`, `@types/node`, `requests==2.31`, `black[jupyter]`), never
/// another source: a URL or VCS spec (`git+…`, `github:…`, `file:…`), a
/// path, or an archive (SPEC §15.16).
pub fn pkgspec(text: &str) -> Result<(), String> {
    let t = text.to_ascii_lowercase();
    let archive = [
        ".tgz", ".tar.gz", ".tar", ".zip", ".whl", ".egg", ".gem", ".crate", ".tar.bz2", ".tar.xz",
    ]
    .iter()
    .any(|e| t.ends_with(e));
    let name_part = t
        .split(['@', '=', '<', '>', '~', '!', '[', ';', ' '])
        .find(|p| !p.is_empty())
        .unwrap_or("");
    let scoped = t.starts_with('@');
    let slash_ok = if scoped {
        // `@scope/name[@version]`: exactly one `/`, inside the name.
        let body = &t[1..];
        let name = body.split('@').next().unwrap_or("");
        name.matches('/').count() == 1 && !body[name.len()..].contains('/')
    } else {
        !t.contains('/')
    };
    let ok = !t.is_empty()
        && !t.contains(':')
        && !t.starts_with(['.', '/', '~', '-', '\\'])
        && slash_ok
        && !archive
        && !name_part.is_empty();
    if ok {
        Ok(())
    } else {
        Err(format!("`{text}` names another package source"))
    }
}

/// A revision of the project's own history, not whatever was last fetched
/// from anywhere (`FETCH_HEAD` may hold another repository's commits, whose
/// files land in the working tree).
pub fn local_rev(text: &str) -> Result<(), String> {
    if text.starts_with("FETCH_HEAD") {
        Err("FETCH_HEAD holds commits fetched from anywhere".into())
    } else {
        Ok(())
    }
}

/// A revision that names commits by a ref (`HEAD~1`, `main..topic`,
/// `v1.2`), never a bare object id: `git show 8678f97` or
/// `git diff <id> <id>` print a blob's content when the id is a file's
/// (one `git ls-files -s .env` away), and no path is there to check.
pub fn commit_rev(text: &str) -> Result<(), String> {
    local_rev(text)?;
    let bare_id = |t: &str| t.len() >= 4 && t.bytes().all(|b| b.is_ascii_hexdigit());
    let peeled = text.contains("^{");
    let sides = text.split("..").map(|t| t.trim_start_matches('.'));
    if peeled
        || sides
            .into_iter()
            .any(|t| bare_id(t.trim_start_matches('^')))
    {
        Err(format!(
            "`{text}` may name a file's content by its object id"
        ))
    } else {
        Ok(())
    }
}

/// An operand that is not a response file: binutils expand `@FILE` into
/// options (`--plugin=./x.so` loads code), which the gate cannot see.
pub fn no_at_file(text: &str) -> Result<(), String> {
    if text.starts_with('@') {
        Err(format!(
            "`{text}` is a response file: its options are not visible"
        ))
    } else {
        Ok(())
    }
}

/// An operand of `dotnet build`/`dotnet test` that names a project,
/// solution, directory or assembly, never what the dotnet CLI hands on to
/// MSBuild or the test platform: a switch (`/p:RestoreSources=URL`,
/// `/t:Publish`, `/restore`), a response file (`@x.rsp`), or a
/// `NAME=VALUE` run setting after `--` (`RunConfiguration.TestAdaptersPaths=…`
/// loads assemblies).
pub fn msbuild_operand(text: &str) -> Result<(), String> {
    let switch = text.strip_prefix('/').is_some_and(|rest| {
        let name = rest.split(':').next().unwrap_or("");
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphabetic())
    });
    if text.is_empty() || text.starts_with(['@', '-']) || text.contains('=') || switch {
        Err(format!(
            "`{text}` is handed on to MSBuild or the test platform"
        ))
    } else {
        Ok(())
    }
}

/// sbt commands that compile, test, check formatting or package the
/// project (`test`, `core/Test/compile`, `testOnly a.B -- -z x`, `; clean ;
/// test`): never `eval`/`set`/`console` (Scala code or a REPL),
/// `publish`, `reload`, `++VERSION` (another Scala version), `~test` (runs
/// until stopped) or a plugin loaded from a file.
pub fn sbt_command(text: &str) -> Result<(), String> {
    const TASKS: &[&str] = &[
        "compile",
        "test",
        "testOnly",
        "testQuick",
        "testFull",
        "clean",
        "package",
        "doc",
        "scalafmtCheck",
        "scalafmtCheckAll",
        "scalafmtSbtCheck",
        "scalafmt",
        "scalafmtAll",
        "scalafmtSbt",
        "headerCheck",
        "headerCheckAll",
        "scalastyle",
        "coverage",
        "coverageOff",
        "coverageReport",
        "coverageAggregate",
    ];
    /// Tasks whose arguments name tests (and the framework's options).
    const WITH_ARGS: &[&str] = &["testOnly", "testQuick"];
    let ident = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_alphanumeric())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    };
    let mut any = false;
    for part in text.split(';') {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        any = true;
        let (head, args) = match part.split_once(char::is_whitespace) {
            Some((h, a)) => (h, a.trim()),
            None => (part, ""),
        };
        // `[project/][Config/]task`, the old `config:task` too.
        let segs: Vec<&str> = head.split(['/', ':']).collect();
        let Some((task, scope)) = segs.split_last() else {
            return Err(format!("`{part}` is not an sbt command"));
        };
        let known = TASKS.contains(task) && scope.iter().all(|s| ident(s));
        if !known || (!args.is_empty() && !WITH_ARGS.contains(task)) {
            return Err(format!("`{part}` is not a build or test command of sbt"));
        }
    }
    if any {
        Ok(())
    } else {
        Err("an empty sbt command".into())
    }
}

/// A configured remote's name: never a URL, `host:path` or a path.
pub fn remote_name(text: &str) -> Result<(), String> {
    let ok = !text.is_empty()
        && !text.starts_with(['-', '.'])
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(format!("`{text}` is not a remote name"))
    }
}

/// A refspec that neither forces (`+`) nor names another destination (`a:b`).
pub fn refspec(text: &str) -> Result<(), String> {
    // `refs/heads/*` pushes every branch, like `--all`.
    if text.starts_with('+')
        || text.contains(':')
        || text.starts_with('-')
        || text.contains(['*', '?', '['])
    {
        Err(format!("refspec `{text}` forces or renames"))
    } else {
        Ok(())
    }
}

fn err<T>(s: &str) -> Result<T, String> {
    Err(s.to_string())
}

/// A jq filter that does not read the environment or other files.
pub fn jq(prog: &str) -> Result<(), String> {
    const BAD: &[&str] = &[
        "env",
        "$ENV",
        "input_filename",
        "import",
        "include",
        "$__prog_name",
        "modulemeta",
        "get_search_list",
        "$__loc__",
        "input_line_number",
        "halt_error",
        "getpath_env",
    ];
    // Scan code, following string interpolations `\( … )` back into code.
    let c: Vec<char> = prog.chars().collect();
    let n = c.len();
    let mut i = 0;
    // Stack of contexts: true = string, false = code (an interpolation).
    let mut stack: Vec<(bool, i32)> = vec![(false, 0)];
    while i < n {
        let Some(&(in_string, _)) = stack.last() else {
            return err("unbalanced jq interpolation");
        };
        let ch = c[i];
        if in_string {
            match ch {
                '\\' if i + 1 < n && c[i + 1] == '(' => {
                    stack.push((false, 1));
                    i += 2;
                }
                '\\' => i += 2,
                '"' => {
                    stack.pop();
                    i += 1;
                }
                _ => i += 1,
            }
            continue;
        }
        match ch {
            '"' => {
                stack.push((true, 0));
                i += 1;
            }
            '#' => {
                while i < n && c[i] != '\n' {
                    i += 1;
                }
            }
            '(' => {
                if let Some(top) = stack.last_mut() {
                    top.1 += 1;
                }
                i += 1;
            }
            ')' => {
                let close_interp = stack.len() > 1 && stack.last().is_some_and(|t| t.1 == 1);
                if close_interp {
                    stack.pop();
                } else if let Some(top) = stack.last_mut() {
                    top.1 -= 1;
                }
                i += 1;
            }
            c2 if c2.is_ascii_alphabetic() || c2 == '_' || c2 == '$' => {
                let start = i;
                i += 1;
                while i < n && (c[i].is_ascii_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
                let word: String = c[start..i].iter().collect();
                // `.env` is a field, not the builtin.
                let field = start > 0 && c[start - 1] == '.';
                if !field && BAD.contains(&word.as_str()) {
                    return Err(format!("jq filter uses {word}"));
                }
            }
            _ => i += 1,
        }
    }
    if stack.len() != 1 {
        return err("unterminated jq string");
    }
    Ok(())
}

/// A yq expression: jq's rules, and none of yq's file loaders, environment
/// readers or evaluators (`load`, `load_str`, `env`, `strenv`, `eval`,
/// `envsubst`, `file`, `filename`).
pub fn yq(prog: &str) -> Result<(), String> {
    jq(prog)?;
    let words = [
        "load",
        "load_str",
        "load_xml",
        "load_props",
        "load_base64",
        "strenv",
        "envsubst",
        "eval",
        "filename",
        "file_index",
        "fileIndex",
        "system",
    ];
    let c: Vec<char> = prog.chars().collect();
    let mut i = 0;
    while i < c.len() {
        if c[i].is_ascii_alphabetic() || c[i] == '_' {
            let start = i;
            while i < c.len() && (c[i].is_ascii_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let w: String = c[start..i].iter().collect();
            if words.contains(&w.as_str()) {
                return Err(format!("yq expression uses {w}"));
            }
            continue;
        }
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_specs() {
        for ok in [
            "lodash",
            "lodash@^4.17",
            "@types/node",
            "@types/node@20",
            "requests==2.31",
            "black[jupyter]",
            "numpy>=1.26",
            "typescript@latest",
        ] {
            assert!(pkgspec(ok).is_ok(), "{ok}");
        }
        for bad in [
            "git+https://x/y",
            "github:o/r",
            "file:../x",
            "../lib",
            "./x.tgz",
            "/tmp/p.whl",
            "https://e.x/p.tar.gz",
            "o/r",
            "x.whl",
            "@s/n/x",
        ] {
            assert!(pkgspec(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn jq_filters() {
        for ok in [
            ".",
            ".a.b",
            ".[] | select(.x > 1)",
            "\"\\(.a) x\"",
            "keys",
            "map(.name)",
            ".environment",
        ] {
            assert!(jq(ok).is_ok(), "{ok}: {:?}", jq(ok));
        }
        for bad in [
            "env",
            "$ENV.HOME",
            "\"\\(env.HOME)\"",
            "import \"x\" as y; .",
            "input_filename",
            "\"a\\(\"b\\(env)\")\"",
        ] {
            assert!(jq(bad).is_err(), "{bad} should fail");
        }
    }

    #[test]
    fn msbuild_operands() {
        for ok in [
            "App.csproj",
            "src/App/App.csproj",
            "x.sln",
            ".",
            "/home/u/p/x.csproj",
            "bin/Debug/net8.0/T.dll",
        ] {
            assert!(msbuild_operand(ok).is_ok(), "{ok}");
        }
        for bad in [
            "/p:RestoreSources=https://evil.example/x",
            "/t:Publish",
            "/restore",
            "@x.rsp",
            "RunConfiguration.TestAdaptersPaths=/tmp/x",
            "-p:X=1",
            "",
        ] {
            assert!(msbuild_operand(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sbt_commands() {
        for ok in [
            "test",
            "compile",
            "Test/compile",
            "core/test",
            "core/Test/compile",
            "test:compile",
            "testOnly com.x.FooSpec -- -z bar",
            "; clean ; test",
            "scalafmtCheckAll",
        ] {
            assert!(sbt_command(ok).is_ok(), "{ok}");
        }
        for bad in [
            "publish",
            "publishLocal",
            "eval sys.exit(1)",
            "set every version := \"x\"",
            "console",
            "~test",
            "++2.13.12 test",
            "+test",
            "reload plugins",
            "test; publish",
            "compile extra",
            "run",
            "",
            ";",
            "core/../test",
        ] {
            assert!(sbt_command(bad).is_err(), "{bad}");
        }
    }
}
