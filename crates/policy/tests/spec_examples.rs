//! Every example a program spec carries (crates/programs/specs/*.toml),
//! checked end to end through the policy inside a scratch project: the
//! program model's data tests itself (issue 17/18).
//! - `safe_examples` are allowed as `safe_verb_in_safe_space`;
//! - `unsafe_examples` are not allowed without a grant;
//! - `uncovered_examples` are not allowed even with a grant of their verb;
//! - `verb_examples` have the stated verb.

use shellgate_policy::decision::{GrantRef, Lookups};
use shellgate_policy::fs::OsFs;
use shellgate_policy::{evaluate, Audience, Channel, Context, Os, Policy, Request};
use shellgate_programs::{Expect, EXAMPLES};

/// Grants every verb everywhere: what a broad grant would cover.
struct GrantAll;

impl Lookups for GrantAll {
    fn persistent_grant(
        &self,
        _: Audience,
        _: &str,
        verb: &str,
        _: Option<&str>,
    ) -> Option<GrantRef> {
        Some(GrantRef {
            verb: verb.to_string(),
            directory: None,
        })
    }
    fn session_grant(&self, _: Audience, _: &str, _: &str, _: Option<&str>) -> Option<GrantRef> {
        None
    }
    fn take_once(&self, _: &str, _: &str, _: Option<&str>) -> bool {
        false
    }
}

/// Where the policy looks for the program behind `--help`/`--version`.
fn on_path(program: &str) -> bool {
    ["/usr/bin", "/bin", "/usr/local/bin", "/usr/sbin", "/sbin"]
        .iter()
        .any(|d| std::path::Path::new(d).join(program).is_file())
}

#[test]
fn every_spec_example_holds_end_to_end() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonical tempdir");
    let home = root.join("home");
    let project = home.join("proj");
    let gate = home.join(".shellgate");
    std::fs::create_dir_all(project.join("src")).expect("project");
    // The project is a repository (empty: no object id names anything, so
    // `git show 8678f97` stays a question, as its example says).
    for d in [".git/objects/pack", ".git/refs/heads", ".git/refs/tags"] {
        std::fs::create_dir_all(project.join(d)).expect("git dir");
    }
    std::fs::write(project.join(".git/HEAD"), "ref: refs/heads/main\n").expect("HEAD");
    std::fs::create_dir_all(gate.join("sessions/s1")).expect("session dir");
    let s = |p: &std::path::Path| p.to_string_lossy().to_string();
    let ctx = Context {
        session: "s1".into(),
        audience: Audience::Personal,
        channel: Channel::Interactive,
        os: Os::Linux,
        project_dir: Some(s(&project)),
        session_dir: s(&gate.join("sessions/s1")),
        home: s(&home),
        gate_home: s(&gate),
        fs: &OsFs,
        run_env: shellgate_policy::RunEnv {
            path: Some("/usr/local/bin:/usr/bin:/bin"),
            xdg_config_home: None,
            cdpath: None,
        },
    };
    let policy = Policy::new(Default::default(), &[]);
    let mut failures = Vec::new();
    for ex in &EXAMPLES {
        let req = Request {
            tool: "shell_execute".into(),
            command: ex.command.to_string(),
            working_directory: Some(s(&project)),
        };
        match ex.expect {
            Expect::Safe => {
                let d = evaluate(&policy, &req, &ctx, &shellgate_policy::NoLookups);
                let program = ex.command.split_whitespace().next().unwrap_or("");
                let help = ex.command.contains("--help")
                    || ex.command.contains("--version")
                    || ex.command.ends_with(" -V");
                if help && !on_path(program) {
                    continue; // `--help` of a program not installed here is not safe.
                }
                if d.decision != "allow" || d.reason != "safe_verb_in_safe_space" {
                    failures.push(format!(
                        "{}: safe `{}` got {} {} {:?}",
                        ex.program, ex.command, d.decision, d.reason, d.complex_reasons
                    ));
                }
            }
            Expect::NotSafe => {
                let d = evaluate(&policy, &req, &ctx, &shellgate_policy::NoLookups);
                if d.decision == "allow" && d.reason != "side_effect_only" {
                    failures.push(format!(
                        "{}: unsafe `{}` was allowed ({})",
                        ex.program, ex.command, d.reason
                    ));
                }
            }
            Expect::NotCovered => {
                let d = evaluate(&policy, &req, &ctx, &GrantAll);
                if d.decision == "allow" {
                    failures.push(format!(
                        "{}: a grant covered `{}` ({})",
                        ex.program, ex.command, d.reason
                    ));
                }
            }
            Expect::Verb => {
                let d = evaluate(&policy, &req, &ctx, &shellgate_policy::NoLookups);
                let want = ex.verb.unwrap_or_default();
                if !d.candidates.iter().any(|c| c.verb == want) {
                    let got: Vec<&str> = d.candidates.iter().map(|c| c.verb.as_str()).collect();
                    failures.push(format!(
                        "{}: `{}` verb {:?}, want `{}`",
                        ex.program, ex.command, got, want
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} spec examples fail end to end:\n{}",
        failures.len(),
        EXAMPLES.len(),
        failures.join("\n")
    );
}

#[test]
fn the_model_covers_at_least_150_programs() {
    assert!(
        shellgate_programs::PROGRAMS.len() >= 150,
        "{} programs",
        shellgate_programs::PROGRAMS.len()
    );
}
