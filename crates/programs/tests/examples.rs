//! The examples every spec carries, checked at the level of the model
//! (argv reading and read-only forms). The policy's tests run the same
//! examples end to end, with paths and secrets.

use shellgate_programs::{judge, lookup, parse, Arg, Expect, EXAMPLES, PROGRAMS};

/// Split an example into words: whitespace, with '…' and "…" quoting
/// (examples are simple commands; the real analysis uses a bash parser).
fn words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut has = false;
    let mut chars = cmd.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                has = true;
                for d in chars.by_ref() {
                    if d == '\'' {
                        break;
                    }
                    cur.push(d);
                }
            }
            '"' => {
                has = true;
                while let Some(d) = chars.next() {
                    match d {
                        '"' => break,
                        '\\' => {
                            if let Some(e) = chars.next() {
                                cur.push(e);
                            }
                        }
                        _ => cur.push(d),
                    }
                }
            }
            c if c.is_whitespace() => {
                if has || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            c => cur.push(c),
        }
    }
    if has || !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[test]
fn every_example_behaves_as_its_spec_says() {
    let mut failures = Vec::new();
    for ex in &EXAMPLES {
        let w = words(&ex.command);
        let Some(prog) = w.first().and_then(|p| lookup(p)) else {
            failures.push(format!(
                "{}: `{}` names no known program",
                ex.program, ex.command
            ));
            continue;
        };
        if prog.id != ex.program {
            failures.push(format!(
                "{}: `{}` selects {}",
                ex.program, ex.command, prog.id
            ));
        }
        let args: Vec<Arg> = w[1..].iter().map(|s| Arg::Static(s)).collect();
        let p = parse(prog, &args);
        let name = w[0].rsplit('/').next().unwrap_or(&w[0]);
        let ro = judge::read_only_as(name, &p, &args);
        match ex.expect {
            Expect::Verb => {}
            Expect::Safe if judge::help_only(&p) => {}
            Expect::Safe => {
                if let Err(e) = ro {
                    failures.push(format!(
                        "{}: `{}` should be read-only: {}",
                        ex.program, ex.command, e.0
                    ));
                }
                if !judge::uncovered(&p, &args).is_empty() {
                    failures.push(format!(
                        "{}: read-only `{}` reports uncovered",
                        ex.program, ex.command
                    ));
                }
            }
            Expect::NotSafe => {
                if ro.is_ok() {
                    failures.push(format!(
                        "{}: `{}` should not be read-only",
                        ex.program, ex.command
                    ));
                }
            }
            Expect::NotCovered => {
                if judge::uncovered(&p, &args).is_empty() {
                    failures.push(format!(
                        "{}: a grant should not cover `{}`",
                        ex.program, ex.command
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing examples:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_model_is_not_empty() {
    assert!(!PROGRAMS.is_empty());
    assert!(EXAMPLES.len() >= PROGRAMS.len());
}
